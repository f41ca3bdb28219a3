//! The record: one JSON file per chapter and machine, written by listings and read by the book's
//! preprocessor. One serde type for both sides, with a schema version.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bump when a field changes meaning or a required field is added.
/// 2: `derived` and `scopes`; every cell of our own runs carries `noise_steal` and `noise_others`.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub schema: u32,
    /// The listing's package name, e.g. `ch01-blocking`.
    pub chapter: String,
    pub title: String,
    /// UTC time the run finished, RFC 3339.
    pub created: String,
    /// How long the run took, from the start of the listing to its record (older records lack it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_seconds: Option<f64>,
    /// How long each experiment's cells took, all repetitions (older records lack it): the book
    /// estimates a `--filter` or `--reps 1` run from it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub experiment_seconds: BTreeMap<String, f64>,
    pub quick: bool,
    /// Repetitions of every experiment not named in `experiment_reps`.
    pub reps: u32,
    /// Experiments run with a count of their own (a cheap one repeated more, to narrow the
    /// interval its claims are judged on).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub experiment_reps: BTreeMap<String, u32>,
    pub seed: u64,
    pub machine: Machine,
    pub build: Build,
    /// The experiment's setup, as the listing chose it: a run is comparable with the book's
    /// only where these match (worker count, costs, windows).
    pub params: BTreeMap<String, serde_json::Value>,
    /// Values measured on this machine to carry the setup out (calibrations, loop counts): they
    /// differ from machine to machine by design and are never compared.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub derived: BTreeMap<String, serde_json::Value>,
    /// For each experiment, the parameters that shape it; an experiment not named here is shaped
    /// by all of them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scopes: BTreeMap<String, Vec<String>>,
    /// Set for figures published elsewhere (the source documents), absent for our own runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    pub series: Vec<Series>,
}

/// The machine a record was measured on.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// The folder name under data/.
    pub name: String,
    pub cpu_model: String,
    /// Logical CPUs the kernel reports online.
    pub cores_seen: u32,
    /// What `std::thread::available_parallelism` returned (affinity and cgroup quota applied).
    pub available_parallelism: u32,
    pub memory_bytes: u64,
    pub os: String,
    pub kernel: String,
    /// 1, 5 and 15 minute load averages before and after the run.
    pub load_before: [f64; 3],
    pub load_after: [f64; 3],
    /// What in the machine can shape a result, read by the harness as the run starts. Records
    /// made before 2026-12-04 lack it; their machine's `machine.toml` stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facts: Option<Facts>,
}

/// What in a machine can shape a measured result, as the guest sees it: the CPU and how its
/// cores share caches (a lock's hand-off, two threads' speed-up), the hypervisor (which hides
/// where the vCPUs run), the clock every timing reads and what reading it costs, the kernel's
/// scheduler settings and CPU-vulnerability mitigations (the cost of a context switch and a
/// system call), the C library (its allocator), and what ran before the run. A value the
/// machine does not expose is `None`, never guessed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// `vendor_id` in /proc/cpuinfo: "AuthenticAMD", "GenuineIntel".
    pub vendor: String,
    /// "family 25, model 1, stepping 1", as /proc/cpuinfo numbers them.
    pub family_model: String,
    /// The clock the guest reports for CPU 0 as the run starts, in MHz.
    pub mhz: Option<f64>,
    /// The online CPUs, as the kernel lists them ("0-1").
    pub cpus_online: String,
    pub sockets: u32,
    /// Distinct (socket, core) pairs among the online CPUs.
    pub cores: u32,
    pub threads_per_core: u32,
    /// Per online CPU, the CPUs that share its core (`thread_siblings_list`), "0", "1".
    pub thread_siblings: Vec<String>,
    /// CPU 0's caches.
    pub caches: Vec<Cache>,
    /// The hypervisor's CPUID signature ("KVMKVMKVM"), `None` on bare metal.
    pub hypervisor: Option<String>,
    /// The clock source every `Instant::now` reads ("tsc", "kvm-clock"), and the others offered.
    pub clocksource: String,
    pub clocksources: Vec<String>,
    /// What reading `Instant::now` costs here and the smallest step it was seen to take.
    pub timer: Timer,
    /// What one `std::hint::spin_loop()` costs (PAUSE on x86, which CPU generations price very
    /// differently): the unit of every spin-wait in kanal, crossbeam and parking_lot. Records
    /// made before 2026-12-04T13:30Z lack it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spin_loop_ns: Option<f64>,
    /// What handing a cache line from one CPU to another costs (half of a round trip between two
    /// threads pinned to the first two CPUs the run may use): what a lock or queue index written
    /// by both a sender and a receiver pays per message. Records made before 2026-12-04T15:00Z
    /// lack it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_handoff_ns: Option<f64>,
    /// `CONFIG_HZ` (the tick) and the preemption model the kernel was built with, from
    /// /proc/config.gz.
    pub tick_hz: Option<u32>,
    pub preemption: Option<String>,
    /// Every `/proc/sys/kernel/sched_*` setting (the base slice, where exposed, is under
    /// /sys/kernel/debug, read when mounted).
    pub scheduler: BTreeMap<String, String>,
    pub base_slice_ns: Option<u64>,
    /// The cpuidle driver and governor (how an idle vCPU waits for its next wake-up).
    pub cpuidle: Option<String>,
    /// `/sys/devices/system/cpu/vulnerabilities/*`: which mitigations the kernel applies.
    pub vulnerabilities: BTreeMap<String, String>,
    /// The kernel's command line up to the init's own arguments.
    pub cmdline: String,
    /// The cgroup's CPU limit (`cpu.max`), `None` where no cgroup v2 file says.
    pub cpu_max: Option<String>,
    /// Transparent huge pages: the chosen mode of `enabled`.
    pub thp: Option<String>,
    /// "glibc 2.36", or `None` off glibc.
    pub libc: Option<String>,
    /// Runnable tasks (`procs_running` in /proc/stat) as the run starts, this one included.
    pub procs_running: Option<u32>,
}

/// One CPU cache as sysfs describes it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cache {
    pub level: u32,
    /// "Data", "Instruction" or "Unified".
    pub kind: String,
    pub size_bytes: u64,
    /// The CPUs that share it ("0-1").
    pub shared_with: String,
}

/// The clock a timing reads, measured as the run starts.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Timer {
    /// The median over batches of the time one `Instant::now()` takes.
    pub now_cost_ns: f64,
    /// The smallest non-zero difference between two consecutive readings.
    pub resolution_ns: f64,
}

impl Facts {
    /// The facts as (label, value) rows, in the order a reader compares machines by.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "not exposed".into());
        let caches = self
            .caches
            .iter()
            .map(|c| {
                let kind = match c.kind.as_str() {
                    "Data" => "d",
                    "Instruction" => "i",
                    _ => "",
                };
                format!(
                    "L{}{kind} {} (shared by CPUs {})",
                    c.level,
                    bytes(c.size_bytes),
                    c.shared_with
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        let settings = |m: &BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        vec![
            ("vendor", self.vendor.clone()),
            ("family and model", self.family_model.clone()),
            (
                "clock at start",
                self.mhz
                    .map_or("not exposed".into(), |m| format!("{m:.0} MHz")),
            ),
            (
                "topology",
                format!(
                    "CPUs {} online: {} socket(s), {} core(s), {} thread(s) per core, as the guest sees them",
                    self.cpus_online, self.sockets, self.cores, self.threads_per_core
                ),
            ),
            (
                "thread siblings",
                self.thread_siblings
                    .iter()
                    .enumerate()
                    .map(|(cpu, s)| format!("cpu{cpu}: {s}"))
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            ("caches (CPU 0)", caches),
            (
                "hypervisor",
                self.hypervisor.clone().unwrap_or_else(|| "none".into()),
            ),
            (
                "clock source",
                if self.clocksources.is_empty() {
                    self.clocksource.clone()
                } else {
                    format!(
                        "{} (offered: {})",
                        self.clocksource,
                        self.clocksources.join(", ")
                    )
                },
            ),
            (
                "Instant::now",
                format!(
                    "{:.0} ns a call, steps of {:.0} ns",
                    self.timer.now_cost_ns, self.timer.resolution_ns
                ),
            ),
            (
                "spin_loop (PAUSE)",
                self.spin_loop_ns
                    .map_or("not recorded".into(), |ns| format!("{ns:.1} ns a call")),
            ),
            (
                "cache line between two CPUs",
                self.line_handoff_ns
                    .map_or("not recorded".into(), |ns| format!("{ns:.0} ns a hand-off")),
            ),
            (
                "scheduler tick",
                self.tick_hz.map_or("not exposed".into(), |hz| {
                    format!("CONFIG_HZ={hz} (a tick of {} ms)", 1000 / hz.max(1))
                }),
            ),
            ("preemption", or_unknown(&self.preemption)),
            (
                "base slice",
                self.base_slice_ns
                    .map_or("not exposed (debugfs not mounted)".into(), |ns| {
                        format!("{:.2} ms", ns as f64 / 1e6)
                    }),
            ),
            ("scheduler settings", settings(&self.scheduler)),
            ("cpuidle", or_unknown(&self.cpuidle)),
            ("mitigations", {
                // What applies; the CPU is not affected by the rest.
                let applied: BTreeMap<String, String> = self
                    .vulnerabilities
                    .iter()
                    .filter(|(_, v)| v.as_str() != "Not affected")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let others = self.vulnerabilities.len() - applied.len();
                match (applied.is_empty(), others) {
                    (true, _) => format!("none ({others} not affected)"),
                    (false, 0) => settings(&applied),
                    (false, _) => format!("{}; {others} others: not affected", settings(&applied)),
                }
            }),
            ("kernel command line", self.cmdline.clone()),
            ("cgroup CPU limit", or_unknown(&self.cpu_max)),
            ("transparent huge pages", or_unknown(&self.thp)),
            ("C library", or_unknown(&self.libc)),
            (
                "runnable at start",
                self.procs_running
                    .map_or("not exposed".into(), |n| format!("{n} task(s)")),
            ),
        ]
    }
}

/// "32 KiB", "1 MiB": a cache size as sysfs would print it.
fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

/// How the measured code was built.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Build {
    pub rustc: String,
    pub opt_level: String,
    /// Versions of the crates that matter to this chapter, from Cargo.lock.
    pub crates: BTreeMap<String, String>,
    /// `git rev-parse HEAD` (short), with `-dirty` when anything that shapes the run (see
    /// [`crate::freshness`]) had uncommitted changes.
    pub commit: String,
    /// One hash of everything that shaped the run ([`crate::freshness::combined`]): a record
    /// whose hash no longer matches the tree is stale. The name is older than what it covers.
    pub listing_hash: String,
    /// The same, input by input (`listings/ch01-blocking`, `tools/measure`, ...), so that a
    /// stale record can say what changed. Records older than this field lack it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, String>,
}

/// Where published figures come from.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The document, as the book's Sources page (src/sources.md) names it.
    pub document: String,
    /// Where in it, in words.
    pub location: String,
    pub setup: String,
}

/// One (experiment, case, variant, metric) with its repetitions.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Series {
    pub experiment: String,
    pub case: String,
    pub variant: String,
    pub metric: String,
    pub unit: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// The raw value of every repetition, in the order they ran.
    pub values: Vec<f64>,
}

/// One cell of [`Record::sketch`]: (experiment, case, variant, metric, unit, values).
pub type SketchCell<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, &'a [f64]);

/// Why a record could not be read.
#[derive(Debug)]
pub enum RecordError {
    Missing(PathBuf),
    Io(PathBuf, std::io::Error),
    Corrupt(PathBuf, String),
    Schema { path: PathBuf, found: Option<u64> },
    Invalid(PathBuf, String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Missing(p) => write!(f, "{}: no such record", p.display()),
            RecordError::Io(p, e) => write!(f, "{}: cannot read: {e}", p.display()),
            RecordError::Corrupt(p, e) => write!(f, "{}: not a valid record: {e}", p.display()),
            RecordError::Schema { path, found } => write!(
                f,
                "{}: record schema version {} but this build reads version {SCHEMA_VERSION}; rerun the listing with --save",
                path.display(),
                found.map_or("(none)".to_string(), |v| v.to_string())
            ),
            RecordError::Invalid(p, e) => write!(f, "{}: inconsistent record: {e}", p.display()),
        }
    }
}

impl std::error::Error for RecordError {}

impl Record {
    /// Reads and checks a record, with an error that names the file.
    pub fn load(path: &Path) -> Result<Record, RecordError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RecordError::Missing(path.into()));
            }
            Err(e) => return Err(RecordError::Io(path.into(), e)),
        };
        Record::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Record, RecordError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| RecordError::Corrupt(path.into(), e.to_string()))?;
        let found = value.get("schema").and_then(|v| v.as_u64());
        if found != Some(u64::from(SCHEMA_VERSION)) {
            return Err(RecordError::Schema {
                path: path.into(),
                found,
            });
        }
        let record: Record = serde_json::from_value(value)
            .map_err(|e| RecordError::Corrupt(path.into(), e.to_string()))?;
        record
            .validate()
            .map_err(|e| RecordError::Invalid(path.into(), e))?;
        Ok(record)
    }

    /// Internal consistency: every series has its repetitions and its summary matches them.
    pub fn validate(&self) -> Result<(), String> {
        if self.series.is_empty() {
            return Err("no series".into());
        }
        for s in &self.series {
            let name = format!("{}/{}/{}/{}", s.experiment, s.case, s.variant, s.metric);
            if s.values.is_empty() {
                return Err(format!("{name}: no values"));
            }
            if self.source.is_none() && s.values.len() != self.reps_of(&s.experiment) as usize {
                return Err(format!(
                    "{name}: {} values for {} repetitions",
                    s.values.len(),
                    self.reps_of(&s.experiment)
                ));
            }
            let sum = crate::Summary::of(&s.values).ok_or(format!("{name}: a value is NaN"))?;
            let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
            if self.source.is_none()
                && !(same(sum.median, s.median) && same(sum.min, s.min) && same(sum.max, s.max))
            {
                return Err(format!("{name}: median/min/max do not match the values"));
            }
        }
        Ok(())
    }

    /// Writes the record atomically ([`write_atomic`]).
    pub fn save_atomic(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_vec_pretty(self)?;
        text.push(b'\n');
        write_atomic(path, &text)
    }

    /// The series matching an exact (experiment, case, variant, metric).
    pub fn find(
        &self,
        experiment: &str,
        case: &str,
        variant: &str,
        metric: &str,
    ) -> Option<&Series> {
        self.series.iter().find(|s| {
            s.experiment == experiment
                && s.case == case
                && s.variant == variant
                && s.metric == metric
        })
    }

    /// A small record made by hand, for tests of claims and reports: these parameters and
    /// (experiment, case, variant, metric, unit, per-repetition values) cells.
    pub fn sketch(
        chapter: &str,
        machine: &str,
        params: &[(&str, f64)],
        cells: &[SketchCell<'_>],
    ) -> Record {
        let reps = cells.first().map_or(1, |c| c.5.len());
        Record {
            schema: SCHEMA_VERSION,
            chapter: chapter.into(),
            title: chapter.into(),
            created: "2026-11-30T00:00:00Z".into(),
            run_seconds: None,
            experiment_seconds: BTreeMap::new(),
            quick: false,
            reps: reps as u32,
            experiment_reps: BTreeMap::new(),
            seed: 1,
            machine: Machine {
                name: machine.into(),
                cpu_model: "Sketch CPU".into(),
                cores_seen: 2,
                available_parallelism: 2,
                memory_bytes: 1 << 34,
                os: "linux".into(),
                kernel: "6.0".into(),
                load_before: [0.1; 3],
                load_after: [0.2; 3],
                facts: None,
            },
            build: Build {
                rustc: "rustc 1.95.0".into(),
                opt_level: "3".into(),
                crates: BTreeMap::new(),
                commit: "sketch".into(),
                listing_hash: String::new(),
                inputs: BTreeMap::new(),
            },
            params: params
                .iter()
                .map(|(k, v)| {
                    let v = if v.fract() == 0.0 {
                        serde_json::json!(*v as i64)
                    } else {
                        serde_json::json!(v)
                    };
                    (k.to_string(), v)
                })
                .collect(),
            derived: BTreeMap::new(),
            scopes: BTreeMap::new(),
            source: None,
            series: cells
                .iter()
                .map(|(e, c, v, m, u, values)| {
                    let s = crate::Summary::of(values).unwrap_or(crate::Summary {
                        median: f64::NAN,
                        min: f64::NAN,
                        max: f64::NAN,
                    });
                    Series {
                        experiment: e.to_string(),
                        case: c.to_string(),
                        variant: v.to_string(),
                        metric: m.to_string(),
                        unit: u.to_string(),
                        median: s.median,
                        min: s.min,
                        max: s.max,
                        values: values.to_vec(),
                    }
                })
                .collect(),
        }
    }

    /// How many repetitions `experiment` ran.
    pub fn reps_of(&self, experiment: &str) -> u32 {
        self.experiment_reps
            .get(experiment)
            .copied()
            .unwrap_or(self.reps)
    }

    /// A parameter of the run: the setup first, then the values derived on the machine.
    pub fn param(&self, name: &str) -> Option<&serde_json::Value> {
        self.params.get(name).or_else(|| self.derived.get(name))
    }

    /// The parameters that shape `experiment` (all of them unless the record scopes it).
    pub fn shaping_params(&self, experiment: &str) -> Vec<&str> {
        match self.scopes.get(experiment) {
            Some(names) => names.iter().map(String::as_str).collect(),
            None => self.params.keys().map(String::as_str).collect(),
        }
    }

    /// How this run's setup for `experiment` differs from `book`'s, as "workers 2 here, 1 in the
    /// book" phrases; empty when the two are comparable. A quick run is never comparable with a
    /// full one (shorter windows, fewer cases).
    pub fn setup_differences(&self, book: &Record, experiment: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.quick != book.quick {
            let mode = |q: bool| if q { "quick" } else { "full" };
            out.push(format!(
                "a {} run here, a {} run in the book",
                mode(self.quick),
                mode(book.quick)
            ));
        }
        // The run's own scope for the experiment (the listing as it is now), else the book's,
        // else every parameter of either.
        let mut names: Vec<&str> = if self.scopes.contains_key(experiment) {
            self.shaping_params(experiment)
        } else if book.scopes.contains_key(experiment) {
            book.shaping_params(experiment)
        } else {
            self.params
                .keys()
                .chain(book.params.keys())
                .map(String::as_str)
                .collect()
        };
        names.sort();
        names.dedup();
        // 30 and 30.0 are the same setting.
        let same = |a: Option<&serde_json::Value>, b: Option<&serde_json::Value>| match (a, b) {
            (Some(x), Some(y)) if x.is_number() && y.is_number() => x.as_f64() == y.as_f64(),
            _ => a == b,
        };
        for name in names {
            let (mine, theirs) = (self.params.get(name), book.params.get(name));
            if !same(mine, theirs) {
                let show = |v: Option<&serde_json::Value>| {
                    v.map_or("(none)".to_string(), |v| {
                        v.to_string().trim_matches('"').to_string()
                    })
                };
                out.push(format!(
                    "{name} {} here, {} in the book",
                    show(mine),
                    show(theirs)
                ));
            }
        }
        out
    }
}

/// Writes a file atomically: a temporary file in the same folder, then a rename, so an
/// interrupted or failed write never leaves a half-written file in place of a good one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let dir = dir.unwrap_or(Path::new("."));
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The repository root: the nearest folder above the current one with book.toml and Cargo.toml,
/// else the one this crate was compiled in.
pub fn repo_root() -> PathBuf {
    let is_root = |d: &Path| d.join("book.toml").is_file() && d.join("Cargo.toml").is_file();
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(d) = cwd.ancestors().find(|d| is_root(d)) {
        return d.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `data/<machine>/<chapter>.json` under the repository root.
pub fn record_path(root: &Path, machine: &str, chapter: &str) -> PathBuf {
    root.join("data")
        .join(machine)
        .join(format!("{chapter}.json"))
}

/// The machine a chapter's figures in the book come from: its manifest's `machine`
/// (`crate::chapter`). `None` without a readable manifest.
pub fn reference_machine(root: &Path, chapter: &str) -> Option<String> {
    crate::chapter::load(root, chapter).ok().map(|m| m.machine)
}

/// The machine a chapter's busy-neighbour record comes from: `<its machine>-busy`.
pub fn busy_machine_for(root: &Path, chapter: &str) -> Option<String> {
    crate::chapter::load(root, chapter)
        .ok()
        .map(|m| m.busy_machine())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample_with(params: &[(&str, f64)], series: &[SketchCell]) -> Record {
        Record::sketch("ch00-test", "test-machine", params, series)
    }

    pub(crate) fn sample() -> Record {
        Record {
            schema: SCHEMA_VERSION,
            chapter: "ch00-test".into(),
            title: "test".into(),
            created: "2026-11-29T00:00:00Z".into(),
            run_seconds: None,
            experiment_seconds: BTreeMap::new(),
            quick: true,
            reps: 2,
            experiment_reps: BTreeMap::new(),
            seed: 1,
            machine: Record::sketch("ch00-test", "test-machine", &[], &[]).machine,
            build: Build {
                rustc: "rustc".into(),
                opt_level: "3".into(),
                crates: BTreeMap::new(),
                commit: "abc".into(),
                listing_hash: "0011".into(),
                inputs: BTreeMap::new(),
            },
            params: BTreeMap::new(),
            derived: BTreeMap::new(),
            scopes: BTreeMap::new(),
            source: None,
            series: vec![Series {
                experiment: "e".into(),
                case: "1".into(),
                variant: "v".into(),
                metric: "p99".into(),
                unit: "ns".into(),
                median: 1.5,
                min: 1.0,
                max: 2.0,
                values: vec![1.0, 2.0],
            }],
        }
    }

    #[test]
    fn round_trips_through_an_atomic_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/er/rec.json");
        let rec = sample();
        rec.save_atomic(&path).unwrap();
        assert_eq!(Record::load(&path).unwrap(), rec);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn a_failed_save_keeps_the_old_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.json");
        sample().save_atomic(&path).unwrap();
        let before = std::fs::read_to_string(&path).unwrap();
        // A directory where the temporary file would go makes the write fail midway.
        let blocker = dir
            .path()
            .join(format!(".rec.json.{}.tmp", std::process::id()));
        std::fs::create_dir(&blocker).unwrap();
        let mut changed = sample();
        changed.title = "changed".into();
        assert!(changed.save_atomic(&path).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }

    #[test]
    fn names_the_file_for_corrupt_wrong_schema_and_inconsistent_records() {
        let p = Path::new("data/x/ch.json");
        let e = Record::parse(p, "{ not json").unwrap_err();
        assert!(matches!(e, RecordError::Corrupt(..)) && e.to_string().contains("data/x/ch.json"));
        let e = Record::parse(p, r#"{"schema": 99}"#).unwrap_err();
        assert!(e.to_string().contains("schema version 99"), "{e}");
        let mut bad = sample();
        bad.series[0].median = 5.0;
        let e = Record::parse(p, &serde_json::to_string(&bad).unwrap()).unwrap_err();
        assert!(matches!(e, RecordError::Invalid(..)), "{e}");
        let mut short = sample();
        short.reps = 3;
        assert!(Record::parse(p, &serde_json::to_string(&short).unwrap()).is_err());
        let e = Record::load(Path::new("/nonexistent/rec.json")).unwrap_err();
        assert!(matches!(e, RecordError::Missing(_)));
    }

    #[test]
    fn setups_compare_on_the_parameters_that_shape_an_experiment() {
        let book = sample_with(&[("workers", 1.0), ("keys", 100.0)], &[]);
        let mut mine = sample_with(&[("workers", 1.0), ("keys", 500.0)], &[]);
        assert_eq!(
            mine.setup_differences(&book, "e"),
            vec!["keys 500 here, 100 in the book"]
        );
        mine.scopes.insert("e".into(), vec!["workers".into()]);
        assert!(
            mine.setup_differences(&book, "e").is_empty(),
            "keys does not shape e"
        );
        mine.quick = true;
        assert_eq!(
            mine.setup_differences(&book, "e"),
            vec!["a quick run here, a full run in the book"]
        );
    }
}
