//! Where the figures come from: the provenance line under a table (`provenance`), the machine
//! (`machine`, `topology`), which machine each chapter's figures come from (`machines`) and the
//! versions in force (`versions`).

use super::count_cells;
use crate::data::{Data, Which, list};
use crate::{esc, locked_versions};
use measure::format::format_plain;
use measure::noise;
use measure::record::Record;
use serde::Deserialize;

/// `provenance`: a record's provenance line alone.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Provenance {
    #[serde(rename = "*")]
    which: Which,
}

/// `machine`: the machine a record was measured on, in words (`field=`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Machine {
    #[serde(rename = "*")]
    which: Which,
    #[serde(default)]
    field: Field,
}

choice! {
    /// What `machine` says of the machine.
    #[derive(Default)]
    enum Field {
        #[default]
        Summary = "summary",
        Cpu = "cpu",
        Cores = "cores",
        Name = "name",
        /// What handing a cache line between the run's two CPUs cost (`Facts::line_handoff_ns`).
        LineHandoff = "line-handoff",
        /// What one `spin_loop()` cost (`Facts::spin_loop_ns`).
        SpinLoop = "spin-loop",
    }
}

/// `topology`: what in each machine can shape its results, one column per machine
/// (`machines=a,b`; the book's machine unless given), the rows where they differ marked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Topology {
    machines: Option<Vec<String>>,
}

/// `machines`: which machine each chapter's figures come from (every chapter's, or `records=`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Machines {
    records: Option<Vec<String>>,
}

/// `versions`: the toolchain and the crates' versions in Cargo.lock (every chapter's crates, or
/// `crates=`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Versions {
    crates: Option<Vec<String>>,
}

/// The book's edition (`\{{#measure edition}}`), for its title page: who wrote it, the commit and
/// date it was built from, and where its repository is.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Edition {}

pub(super) fn edition(data: &Data, _: &Edition) -> Result<String, String> {
    // Errors are not kept: a copy without its git history says so instead.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(data.root())
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // An export, a test's book: no git history.
    let built = match (
        git(&["rev-parse", "--short=12", "HEAD"]),
        git(&["log", "-1", "--format=%cs"]),
        git(&["status", "--porcelain", "--untracked-files=no"]),
    ) {
        (Some(commit), Some(date), Some(status)) => format!(
            "Edition of {date}, built from commit <code>{commit}</code>{}",
            if status.is_empty() {
                ""
            } else {
                " and changes not yet committed"
            }
        ),
        _ => "Built from a copy without its git history, so without a commit to name".to_string(),
    };
    // Only the deployed site knows its address (the deploy workflow sets it).
    let source = data.repository().map_or(String::new(), |url| {
        format!(
            " The code, the records and the issues: <a href=\"{0}\">{0}</a>.",
            esc(url)
        )
    });
    Ok(format!(
        "<p class=\"edition\">By the book's contributors. {built}.{source}</p>\n"
    ))
}

pub(super) fn machine(data: &Data, d: &Machine) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let m = &r.record.machine;
    Ok(match d.field {
        Field::Summary => machine_summary(&r.record),
        Field::Cpu => esc(&m.cpu_model),
        Field::Cores => m.available_parallelism.to_string(),
        Field::Name => esc(&m.name),
        Field::LineHandoff => fact_ns(&r.record, "line-handoff", |f| f.line_handoff_ns)?,
        Field::SpinLoop => fact_ns(&r.record, "spin-loop", |f| f.spin_loop_ns)?,
    })
}

/// A timing from the record's machine facts, as "84 ns"; an error naming the record where the
/// record predates that fact.
fn fact_ns(
    record: &Record,
    field: &str,
    get: impl Fn(&measure::record::Facts) -> Option<f64>,
) -> Result<String, String> {
    let ns = record.machine.facts.as_ref().and_then(get).ok_or_else(|| {
        format!(
            "the record of {} on {} does not carry the fact `{field}` (it was made before the harness recorded it): rerun it with --save",
            record.chapter, record.machine.name
        )
    })?;
    Ok(format_plain(ns, "ns"))
}

/// The rows of `data/NAME/machine.toml` (written by the retired `scripts/machine-info.sh`,
/// before records carried their machine's facts), each under the label of the fact it stands
/// for (`Facts::rows`) or a label of its own.
const MACHINE_TOML: [(&str, &str); 14] = [
    ("cpu_model", "CPU model"),
    ("vendor", "vendor"),
    ("family_model", "family and model"),
    ("cpus", "CPUs"),
    ("topology", "topology"),
    ("thread_siblings", "thread siblings"),
    ("caches", "caches (CPU 0)"),
    ("hypervisor", "hypervisor"),
    ("clocksource", "clock source"),
    ("kernel", "kernel"),
    ("scheduler_tick", "scheduler tick"),
    ("glibc", "C library"),
    ("mimalloc", "mimalloc"),
    ("recorded", "recorded"),
];

/// One column of the facts table: its heading, its (label, value) rows, and whether they come
/// from a record's facts (not from an older `machine.toml`, whose wording differs).
type FactsColumn = (String, Vec<(String, String)>, bool);

/// One machine's facts, a column per CPU its records were measured on (one name can cover
/// several hosts): each from the newest record on that CPU, and the records made before records
/// carried facts from the machine's `machine.toml`, each column headed with its records.
fn machine_facts(data: &Data, machine: &str) -> Result<Vec<FactsColumn>, String> {
    let mut by_cpu: Vec<(std::rc::Rc<Record>, Vec<String>)> = Vec::new();
    let mut without = Vec::new();
    for name in data.records_or_all(None)? {
        let Ok(rec) = data.record(machine, &name) else {
            continue;
        };
        let Some(facts) = &rec.machine.facts else {
            without.push(name);
            continue;
        };
        let same_cpu = by_cpu.iter_mut().find(|(r, _)| {
            let f = r.machine.facts.as_ref().expect("grouped for its facts");
            (&r.machine.cpu_model, &f.vendor, &f.family_model)
                == (&rec.machine.cpu_model, &facts.vendor, &facts.family_model)
        });
        match same_cpu {
            Some((newest, names)) => {
                names.push(name);
                if rec.created > newest.created {
                    *newest = rec;
                }
            }
            None => by_cpu.push((rec, vec![name])),
        }
    }
    let mut columns: Vec<FactsColumn> = by_cpu
        .into_iter()
        .map(|(rec, names)| {
            let m = &rec.machine;
            let facts = m.facts.as_ref().expect("grouped for its facts");
            let mut rows = vec![("CPU model".to_string(), m.cpu_model.clone())];
            rows.extend(facts.rows().into_iter().map(|(k, v)| (k.to_string(), v)));
            rows.push(("kernel".into(), m.kernel.clone()));
            rows.push((
                "recorded".into(),
                format!("{} (data/{machine}/{}.json)", rec.created, rec.chapter),
            ));
            (format!("{machine}: {}", names.join(", ")), rows, true)
        })
        .collect();
    if without.is_empty() && !columns.is_empty() {
        return Ok(columns);
    }
    let path = data.root().join("data").join(machine).join("machine.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        // Older records without a note: the columns of the records that carry facts stand.
        Err(_) if !columns.is_empty() => return Ok(columns),
        Err(e) => {
            return Err(format!(
                "data/{machine}/machine.toml: {e} (and no record in data/{machine} carries its machine's facts: measure a chapter there)"
            ));
        }
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("data/{machine}/machine.toml: {e}"))?;
    if let Some(unknown) = table
        .keys()
        .find(|k| !MACHINE_TOML.iter().any(|(key, _)| key == k))
    {
        return Err(format!(
            "data/{machine}/machine.toml: unknown key `{unknown}` (it has {})",
            list(&MACHINE_TOML.map(|(k, _)| k.to_string()))
        ));
    }
    let rows = MACHINE_TOML
        .iter()
        .map(|(key, label)| {
            let value = table.get(*key).and_then(|v| v.as_str()).ok_or_else(|| {
                format!("data/{machine}/machine.toml: `{key}` is missing or not a string")
            })?;
            Ok((label.to_string(), value.to_string()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let heading = if columns.is_empty() {
        format!("{machine} (machine.toml)")
    } else {
        format!("{machine}: {} (machine.toml)", without.join(", "))
    };
    columns.push((heading, rows, false));
    Ok(columns)
}

/// What in each machine can shape its results, a column per machine (more where its records
/// ran on more than one CPU); a row whose values differ between columns from records' facts is
/// marked, a fact a column's records do not carry says so, and a fact no column has is left out.
pub(super) fn topology(data: &Data, d: &Topology) -> Result<String, String> {
    let machines = d
        .machines
        .clone()
        .unwrap_or_else(|| vec![data.reference().to_string()]);
    let mut headings = Vec::new();
    let mut columns = Vec::new();
    let mut from_facts = Vec::new();
    for m in &machines {
        for (heading, rows, facts) in machine_facts(data, m)? {
            headings.push(heading);
            columns.push(rows);
            from_facts.push(facts);
        }
    }
    // Every label, in the order the first machine that has it lists it.
    let mut labels: Vec<&str> = Vec::new();
    for rows in &columns {
        for (label, _) in rows {
            if !labels.contains(&label.as_str()) {
                labels.push(label);
            }
        }
    }
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure topology\"><thead><tr><th></th>",
    );
    for h in &headings {
        html.push_str(&format!("<th>{}</th>", esc(h)));
    }
    html.push_str("</tr></thead><tbody>");
    for label in labels {
        let values: Vec<Option<&str>> = columns
            .iter()
            .map(|rows| {
                rows.iter()
                    .find(|(l, _)| l == label)
                    .map(|(_, v)| v.as_str())
            })
            .collect();
        let recorded = |v: &&Option<&str>| v.is_some_and(|v| v != "not recorded");
        if !values.iter().any(|v| recorded(&v)) {
            continue;
        }
        // Compared only where both come from records' facts, worded alike.
        let mut seen: Vec<&str> = values
            .iter()
            .zip(&from_facts)
            .filter(|(v, facts)| **facts && recorded(v))
            .filter_map(|(v, _)| *v)
            .collect();
        seen.dedup();
        let differs = label != "recorded" && seen.len() > 1;
        html.push_str(&format!(
            "<tr{}><td>{}</td>",
            if differs { " class=\"differs\"" } else { "" },
            esc(label)
        ));
        for v in values {
            html.push_str(&format!(
                "<td>{}</td>",
                v.map_or("<em>not recorded</em>".into(), esc)
            ));
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table></div>\n");
    Ok(html)
}

fn machine_summary(rec: &Record) -> String {
    let m = &rec.machine;
    if rec.source.is_some() {
        return esc(&m.cpu_model);
    }
    format!(
        "{}, {} CPUs (available_parallelism {}), {:.0} GiB, {} {}",
        esc(&m.cpu_model),
        m.cores_seen,
        m.available_parallelism,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        m.os,
        esc(&m.kernel)
    )
}

/// The line under every table: where, how often, when, from which commit, how noisy; the rest
/// (CPU, versions, seed, load) one click away.
/// `reps`: the repetitions of the experiment the table or chart shows (experiments may run more
/// than the record's default).
pub(super) fn provenance(data: &Data, rec: &Record, machine: &str, reps: u32) -> String {
    if let Some(src) = &rec.source {
        return format!(
            "<details class=\"provenance\"><summary>Published figures: {}</summary><p>{}. Setup: {}.</p></details>",
            esc(&src.document),
            esc(&src.location),
            esc(&src.setup)
        );
    }
    let crates: Vec<String> = rec
        .build
        .crates
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    let stale = data
        .staleness(rec)
        .map(|s| format!(" · <strong class=\"stale\">stale: {}</strong>", esc(&s)))
        .or_else(|| {
            data.changed_since_snapshot(rec).map(|changed| {
                format!(
                    " · a snapshot: measured before later changes to {}",
                    esc(&changed.join(", "))
                )
            })
        })
        .unwrap_or_default();
    let (noise_short, noise_long) = match record_noise(rec) {
        Some((median, max, noisy, cells)) => (
            format!(
                " · noise {} of a core{}",
                format_plain(median, "%"),
                if noisy > 0 {
                    format!(" (<strong>{} noisy</strong>)", count_cells(noisy))
                } else {
                    String::new()
                }
            ),
            format!(
                " Noise (CPU stolen by the hypervisor or used by other processes while a cell ran): median {}, at most {} of a core over {cells} cells; {noisy} above {}.{}",
                format_plain(median, "%"),
                format_plain(max, "%"),
                format_plain(noise::NOISY_PERCENT_OF_A_CORE, "%"),
                repetition_noise(rec)
                    .map(|(max, noisy, runs)| format!(
                        " In single repetitions of a cell: at most {}, {noisy} of {runs} above {}.",
                        format_plain(max, "%"),
                        format_plain(noise::NOISY_PERCENT_OF_A_CORE, "%")
                    ))
                    .unwrap_or_default()
            ),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "<details class=\"provenance\"><summary>Measured on <code>{}</code> · {} repetitions · {} · commit <code>{}</code>{noise_short}{stale}</summary><p>{}; {}, {}; median with min–max over repetitions, variants interleaved (order seed {}); load average {:.2} before, {:.2} after.{noise_long}</p></details>",
        esc(machine),
        reps,
        esc(rec.created.get(..10).unwrap_or(&rec.created)),
        esc(&rec.build.commit),
        machine_summary(rec),
        esc(&rec.build.rustc),
        esc(&crates.join(", ")),
        rec.seed,
        rec.machine.load_before[0],
        rec.machine.load_after[0],
    )
}

/// A table's or chart's provenance line, where the page has not shown the same one already (the
/// same record, machine and repetitions): a page says where its figures come from once, and again
/// only where that changes (published figures, another machine, another experiment's count).
pub(super) fn provenance_once(data: &Data, rec: &Record, machine: &str, reps: u32) -> String {
    let key = format!("{machine}/{}/{}/{reps}", rec.chapter, rec.created);
    if data.first_on_page(key) {
        provenance(data, rec, machine, reps)
    } else {
        String::new()
    }
}

/// Over every cell of a record: (median, max) of steal + other processes' CPU in percent of a
/// core, how many cells were noisy, and how many cells there were.
pub(super) fn record_noise(rec: &Record) -> Option<(f64, f64, usize, usize)> {
    let totals: Vec<f64> = rec
        .series
        .iter()
        .filter(|s| s.metric == noise::STEAL)
        .filter_map(|s| {
            measure::report::cell_noise(rec, &s.experiment, &s.case, &s.variant).map(|n| n.total())
        })
        .collect();
    let summary = measure::Summary::of(&totals)?;
    let noisy = totals
        .iter()
        .filter(|t| **t > noise::NOISY_PERCENT_OF_A_CORE)
        .count();
    Some((summary.median, summary.max, noisy, totals.len()))
}

/// The noise of each repetition of each cell, where the figures above are cells' medians: the
/// largest, how many passed the noisy line, and how many there were. A cell's own servers are
/// taken out repetition by repetition, as `cell_noise` takes out their median.
fn repetition_noise(rec: &Record) -> Option<(f64, usize, usize)> {
    let totals: Vec<f64> = rec
        .series
        .iter()
        .filter(|s| s.metric == noise::STEAL)
        .filter_map(|s| measure::report::repetition_noise(rec, &s.experiment, &s.case, &s.variant))
        .flatten()
        .map(|n| n.total())
        .collect();
    let max = totals.iter().copied().reduce(f64::max)?;
    let noisy = totals
        .iter()
        .filter(|t| **t > noise::NOISY_PERCENT_OF_A_CORE)
        .count();
    Some((max, noisy, totals.len()))
}

/// The title page's list: which machine each chapter's figures come from.
pub(super) fn machines(data: &Data, d: &Machines) -> Result<String, String> {
    let records = data.records_or_all(d.records.as_deref())?;
    let mut html = String::from(
        "<table class=\"measure machines\"><thead><tr><th>chapter</th><th>machine</th><th>CPU</th><th>measured</th><th>noise (median, of a core)</th></tr></thead><tbody>",
    );
    for name in &records {
        let machine = data.machine_for(name, None);
        let rec = data.record(&machine, name)?;
        let noise = record_noise(&rec)
            .map(|(median, _, noisy, _)| {
                format!(
                    "{}{}",
                    format_plain(median, "%"),
                    if noisy > 0 {
                        format!(", {} noisy", count_cells(noisy))
                    } else {
                        String::new()
                    }
                )
            })
            .unwrap_or_else(|| "not recorded".into());
        let m = &rec.machine;
        html.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}, {} CPUs</td><td>{}, {}</td><td>{}</td></tr>",
            esc(&rec.title),
            esc(&machine),
            esc(&m.cpu_model),
            m.available_parallelism,
            esc(rec.created.get(..10).unwrap_or(&rec.created)),
            reps_text(&rec),
            esc(&noise)
        ));
    }
    html.push_str("</tbody></table>\n");
    Ok(html)
}

/// "10 repetitions", or "10–20 repetitions" where the record's experiments ran different counts.
fn reps_text(rec: &measure::Record) -> String {
    let counts = rec.series.iter().map(|s| rec.reps_of(&s.experiment));
    let (lo, hi) = counts.fold((u32::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
    if hi == 0 {
        format!("{} repetitions", rec.reps)
    } else if lo == hi {
        format!("{lo} repetitions")
    } else {
        format!("{lo}–{hi} repetitions")
    }
}

pub(super) fn versions(data: &Data, d: &Versions) -> Result<String, String> {
    let locked = locked_versions(data.root())?;
    let toolchain = std::fs::read_to_string(data.root().join("rust-toolchain.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| {
            t.get("toolchain")?
                .get("channel")?
                .as_str()
                .map(str::to_string)
        })
        .ok_or("rust-toolchain.toml has no [toolchain] channel")?;
    // The book's own renderer, then each chapter's crates as its manifest lists them.
    let mut wanted: Vec<&str> = vec!["mdbook-driver"];
    match &d.crates {
        Some(c) => wanted = c.iter().map(String::as_str).collect(),
        None => {
            for m in data.chapters() {
                for c in &m.crates {
                    if !wanted.contains(&c.as_str()) {
                        wanted.push(c);
                    }
                }
            }
        }
    }
    let mut html = format!(
        "<table class=\"measure versions\"><thead><tr><th>component</th><th>version</th></tr></thead><tbody><tr><td>Rust toolchain</td><td>{}</td></tr>",
        esc(&toolchain)
    );
    for name in wanted {
        match locked.get(name) {
            Some(v) => html.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td></tr>",
                esc(name),
                esc(v)
            )),
            None => return Err(format!("`{name}` is not in Cargo.lock")),
        }
    }
    html.push_str("</tbody></table>\n");
    Ok(html)
}

/// The provenance line alone.
pub(super) fn provenance_line(data: &Data, d: &Provenance) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    Ok(provenance(data, &r.record, &r.machine, r.record.reps))
}

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::Field;
    use crate::render::Kind;

    #[test]
    fn a_machine_field_is_one_of_those_named() {
        let Ok(Kind::Machine(m)) = typed("{{#measure machine record=ch01}}") else {
            panic!("a machine")
        };
        assert_eq!(m.field, Field::Summary);
        let e = typed("{{#measure machine record=ch01 field=gpu}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "field=`gpu`: use summary, cpu, cores, name, line-handoff or spin-loop"
        );
        let e = typed("{{#measure topology record=ch01}}").err().unwrap();
        assert_eq!(
            e,
            "unknown argument `record` for `topology` (allowed: machines)"
        );
        let e = typed("{{#measure provenance record=ch01 experiment=e}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `experiment` for `provenance` (allowed: record, machine)"
        );
        let Ok(Kind::Versions(v)) = typed("{{#measure versions crates=tokio,rayon}}") else {
            panic!("versions")
        };
        assert_eq!(v.crates.unwrap(), ["tokio", "rayon"]);
    }
}
