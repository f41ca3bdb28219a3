//! Workshops and runs: a chapter's minutes (`minutes`), a workshop's schedule (`schedule`), how
//! long a run takes (`runtime`) and a course exercise's hints (`hints`).

use super::class::chapter_heading;
use crate::data::{Data, Session, Which, list};
use crate::esc;
use measure::record::Record;
use serde::Deserialize;

/// `minutes`: a chapter's minutes in a workshop, once per chapter (every `schedule` reads them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Minutes {
    pub record: String,
    pub reading: WholeMinutes,
    pub demo: WholeMinutes,
    pub exercises: WholeMinutes,
}

/// `schedule`: a workshop's schedule from the chapters' minutes, `length=` minutes at most; a
/// break (the next of `breaks=`) before a chapter that would take the sessions since the last
/// one past `every=` minutes (90), after `intro=` minutes (0).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Schedule {
    length: WholeMinutes,
    chapters: Option<Vec<String>>,
    #[serde(default)]
    breaks: Vec<WholeMinutes>,
    every: Option<WholeMinutes>,
    intro: Option<WholeMinutes>,
}

/// A number of minutes, as a workshop counts them.
#[derive(Clone, Copy, Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct WholeMinutes(pub u32);

impl TryFrom<String> for WholeMinutes {
    type Error = &'static str;

    fn try_from(s: String) -> Result<WholeMinutes, &'static str> {
        s.parse()
            .map(WholeMinutes)
            .or(Err("a whole number of minutes"))
    }
}

/// `runtime`: how long a run takes (`experiment=a,b` for `--filter a --filter b`, `reps=N` for
/// `--reps N`), from the chapter's records on every machine (or `machine=`'s alone); `scale=5/3`
/// for a run the records do not have.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Runtime {
    #[serde(rename = "*")]
    which: Which,
    #[serde(default)]
    experiment: Vec<String>,
    reps: Option<Reps>,
    scale: Option<Scale>,
}

/// A number of repetitions, 1 or more.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Reps(u32);

impl TryFrom<String> for Reps {
    type Error = &'static str;

    fn try_from(s: String) -> Result<Reps, &'static str> {
        match s.parse() {
            Ok(n) if n > 0 => Ok(Reps(n)),
            _ => Err("a whole number of repetitions, 1 or more"),
        }
    }
}

/// A factor for a run the records do not have (more cases, more work per case): a positive
/// number or fraction, `5/3`.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Scale(f64);

impl TryFrom<String> for Scale {
    type Error = &'static str;

    fn try_from(f: String) -> Result<Scale, &'static str> {
        let (top, bottom) = f.split_once('/').unwrap_or((&f, "1"));
        match (top.parse::<f64>(), bottom.parse::<f64>()) {
            (Ok(t), Ok(b)) if t > 0.0 && b > 0.0 => Ok(Scale(t / b)),
            _ => Err("a positive number or fraction, e.g. 5/3"),
        }
    }
}

/// `hints`: a course exercise's hints (`exercise=`, an `[[exercise]]` of a chapter's
/// chapter.toml), one per folded block.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Hints {
    exercise: String,
}

/// How long a chapter's full run took on the machine its figures come from, if the record says.
struct FullRun {
    seconds: f64,
    machine: String,
    /// How long one repetition of every case measures, if the record keeps its experiments' times.
    one_rep: Option<f64>,
    /// Whether the full run fits in the chapter's demo minutes.
    live: bool,
}

fn full_run(data: &Data, session: &Session) -> Option<FullRun> {
    let machine = data.machine_for(&session.record, None);
    let rec = data.record(&machine, &session.record).ok()?;
    let seconds = rec.run_seconds?;
    Some(FullRun {
        seconds,
        one_rep: estimated_seconds(&rec, &[], Some(1)).ok(),
        live: seconds <= 60.0 * f64::from(session.demo),
        machine,
    })
}

/// How long a run of the listing measures on the record's machine: the `experiments` named (every
/// one when empty) at `reps` repetitions (the record's when `None`). What the run spends outside
/// the experiments is left out: mostly builds of child binaries, which a second run skips.
pub(super) fn estimated_seconds(
    rec: &Record,
    experiments: &[&str],
    reps: Option<u32>,
) -> Result<f64, String> {
    if rec.experiment_seconds.is_empty() {
        return Err(format!(
            "the record of {} on {} does not keep how long its experiments took (it predates run times): rerun it with --save",
            rec.chapter, rec.machine.name
        ));
    }
    let mut chosen = 0.0;
    for (name, secs) in &rec.experiment_seconds {
        if experiments.is_empty() || experiments.contains(&name.as_str()) {
            let ran = f64::from(rec.reps_of(name));
            chosen += secs * reps.map_or(1.0, |r| f64::from(r) / ran);
        }
    }
    if let Some(unknown) = experiments
        .iter()
        .find(|e| !rec.experiment_seconds.contains_key(**e))
    {
        let known: Vec<String> = rec.experiment_seconds.keys().cloned().collect();
        return Err(format!(
            "experiment `{unknown}` is not in the record; it has {}",
            list(&known)
        ));
    }
    Ok(chosen)
}

/// Whether `rec` measured every cell (case and variant) that `full` measured in `experiments`
/// (all of them when empty).
fn has_every_cell(rec: &Record, full: &Record, experiments: &[&str]) -> bool {
    let cells = |r: &Record| -> std::collections::BTreeSet<(String, String, String)> {
        r.series
            .iter()
            .filter(|s| experiments.is_empty() || experiments.contains(&s.experiment.as_str()))
            .map(|s| (s.experiment.clone(), s.case.clone(), s.variant.clone()))
            .collect()
    };
    cells(full).is_subset(&cells(rec))
}

/// A duration as a reader plans with it: seconds to the nearest five under a minute, else whole
/// minutes.
pub(super) fn about(seconds: f64) -> String {
    if seconds < 7.5 {
        return "a few seconds".into();
    }
    if seconds < 57.5 {
        return format!("about {} seconds", (seconds / 5.0).round() * 5.0);
    }
    let halves = (seconds / 30.0).round() as u64;
    match (halves / 2, halves % 2) {
        (1, 0) => "about a minute".into(),
        (1, _) => "about a minute and a half".into(),
        (m, 0) => format!("about {m} minutes"),
        (m, _) => format!("about {m}½ minutes"),
    }
}

/// "about 10 to 20 seconds" for a run that measured for `lo` seconds on one machine and `hi` on
/// another: the unit said once where both ends share it.
fn about_range(lo: f64, hi: f64) -> String {
    let (from, to) = (about(lo), about(hi));
    let to = to.strip_prefix("about ").unwrap_or(&to);
    for unit in [" seconds", " minutes"] {
        if let (Some(from), Some(to)) = (from.strip_suffix(unit), to.strip_suffix(unit)) {
            return format!("{from} to {to}{unit}");
        }
    }
    format!("{from} to {to}")
}

/// Machines whose estimates differ by more than this factor are shown as a range.
const AGREE_WITHIN: f64 = 1.5;

/// How long a run measures, from each machine's record: the page's machine first.
struct RunEstimate {
    record: String,
    /// (machine, seconds), the page's machine first, then the others by name.
    machines: Vec<(String, f64)>,
}

impl RunEstimate {
    /// The page's machine's estimate, with every other machine under `data/` whose record of the
    /// chapter keeps its run times (all of them unless `machine=` names one): a reader plans with
    /// what the run took on each, not on the one machine the figures come from.
    fn of(
        data: &Data,
        record: &str,
        named: Option<&str>,
        experiments: &[&str],
        reps: Option<u32>,
        scale: f64,
    ) -> Result<RunEstimate, String> {
        let page_machine = data.machine_for(record, named);
        let rec = data.record(&page_machine, record)?;
        let mut machines = vec![(
            page_machine.clone(),
            scale * estimated_seconds(&rec, experiments, reps)?,
        )];
        if named.is_none() {
            for machine in data.measured_machines() {
                if machine == page_machine {
                    continue;
                }
                // A machine without this chapter, or whose record predates run times or lacks
                // the experiment, has nothing to say about this run.
                let Ok(other) = data.record(&machine, record) else {
                    continue;
                };
                // A run filtered to some of an experiment's cases took less than that experiment.
                if !has_every_cell(&other, &rec, experiments) {
                    continue;
                }
                let rec = other;
                if let Ok(secs) = estimated_seconds(&rec, experiments, reps) {
                    machines.push((machine, scale * secs));
                }
            }
        }
        Ok(RunEstimate {
            record: record.to_string(),
            machines,
        })
    }

    /// One figure where the machines agree within [`AGREE_WITHIN`] (the page's machine's), a
    /// range where they do not.
    fn shown(&self) -> String {
        let secs = self.machines.iter().map(|(_, s)| *s);
        let lo = secs.clone().fold(f64::INFINITY, f64::min);
        let hi = secs.fold(0.0, f64::max);
        if hi <= AGREE_WITHIN * lo || about(lo) == about(hi) {
            about(self.machines[0].1)
        } else {
            about_range(lo, hi)
        }
    }

    /// Where the estimate comes from: the record on each machine, with each one's figure.
    fn title(&self) -> String {
        match self.machines.as_slice() {
            [(machine, _)] => format!(
                "estimated from the run times kept in the record of {} on {machine}",
                self.record
            ),
            all => {
                let each: Vec<String> = all
                    .iter()
                    .map(|(m, s)| format!("{m}: {}", about(*s)))
                    .collect();
                format!(
                    "estimated from the run times kept in the records of {} on {} machines ({})",
                    self.record,
                    all.len(),
                    each.join("; ")
                )
            }
        }
    }
}

/// How long a run (`experiment=a,b` for `--filter a --filter b`; `reps=N` for `--reps N`) takes,
/// estimated from the records of the chapter on every machine under `data/` that keeps its run
/// times (`machine=NAME`: that machine's alone): one figure where they agree, a range where they
/// differ, and the machines in the title. `scale=5/3` for a run the records do not have (more
/// cases, more work per case), with the factor stated in the page.
pub(super) fn runtime(data: &Data, d: &Runtime) -> Result<String, String> {
    let experiments: Vec<&str> = d.experiment.iter().map(String::as_str).collect();
    let reps = d.reps.as_ref().map(|r| r.0);
    let scale = d.scale.as_ref().map_or(1.0, |s| s.0);
    let record = &d.which.record;
    let estimate = RunEstimate::of(
        data,
        record,
        d.which.machine.as_deref(),
        &experiments,
        reps,
        scale,
    )?;
    Ok(format!(
        "<span class=\"measure-runtime\" title=\"{}\">{}</span>",
        esc(&estimate.title()),
        esc(&estimate.shown())
    ))
}

/// A course exercise's hints, one per folded block, from its chapter's manifest (what
/// `cargo run -p course -- hint NAME` shows), with the runner's commands for it.
pub(super) fn hints(data: &Data, d: &Hints) -> Result<String, String> {
    let name = &d.exercise;
    let all = course::exercises(data.root()).map_err(|e| format!("{e:#}"))?;
    let exercise = course::find(&all, name).map_err(|e| format!("{e:#}"))?;
    let hints = &exercise.hints;
    if hints.is_empty() {
        return Err(format!("exercise `{name}` has no hints"));
    }
    let mut html = format!(
        "<p class=\"measure-note exercise\">In the course runner: <code>cargo run -p course -- start {0}</code> makes your own copy to work in, <code>check {0}</code> runs its test, <code>hint {0}</code> gives the hints below one at a time, <code>reset {0}</code> starts again.</p>\n",
        esc(name)
    );
    for (i, hint) in hints.iter().enumerate() {
        html.push_str(&format!(
            "<details class=\"hint\"><summary>Hint {}</summary><p>{}</p></details>\n",
            i + 1,
            code_spans(&esc(hint))
        ));
    }
    Ok(html)
}

/// `code` in backticks as `<code>`, in text already escaped.
fn code_spans(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{part}</code>"));
        } else {
            out.push_str(part);
        }
    }
    out
}

fn duration(seconds: f64) -> String {
    let m = (seconds / 60.0).floor();
    let s = (seconds - 60.0 * m).round();
    if m == 0.0 {
        format!("{s} s")
    } else {
        format!("{m} min {s:02} s")
    }
}

/// A chapter's minutes in a workshop (read again by every `schedule`), and how long its full run
/// takes, so a teacher knows whether to run it live.
pub(super) fn minutes(data: &Data, d: &Minutes) -> Result<String, String> {
    let record = d.record.as_str();
    let s = data.session(record)?;
    let run = match full_run(data, s) {
        Some(run) => {
            let when = if run.live {
                "short enough to run live"
            } else {
                "run it before class"
            };
            let classroom = run.one_rep.map_or(String::new(), |r| {
                format!(
                    " One repetition of every case, <code>cargo run -p {} -- --reps 1</code>, measures for {}: the classroom run (the commands below give their own times).",
                    esc(record),
                    about(r)
                )
            });
            format!(
                " A full run, <code>cargo run -p {}</code>, took {} on <code>{}</code>: {when}.{classroom}",
                esc(record),
                duration(run.seconds),
                esc(&run.machine)
            )
        }
        None => format!(
            " This record does not say how long a full run takes (<code>cargo run -p {} -- --help</code> does); the quick mode runs live.",
            esc(record)
        ),
    };
    Ok(format!(
        "<div class=\"measure-note workshop\"><strong>In a workshop:</strong> {} min reading, {} min demo, {} min exercises ({} min).{run} See <a href=\"workshop.html\">Running a workshop</a>.</div>\n",
        s.reading,
        s.demo,
        s.exercises,
        s.total()
    ))
}

/// A workshop's schedule from the chapters' own minutes, with a break (the next of `breaks`)
/// before a chapter that would take the sessions since the last one past `every` minutes; the
/// build fails when it does not fit in `length` minutes.
pub(super) fn schedule(data: &Data, d: &Schedule) -> Result<String, String> {
    let length = d.length.0;
    let every = d.every.map_or(90, |m| m.0);
    let intro = d.intro.map_or(0, |m| m.0);
    let breaks: Vec<u32> = d.breaks.iter().map(|m| m.0).collect();
    // Without `chapters=`, every chapter whose page states its minutes; the rest are named
    // under the schedule, so that a new chapter shows up before it has a slot.
    let (chapters, unscheduled): (Vec<String>, Vec<String>) = match &d.chapters {
        Some(chapters) => (data.records_or_all(Some(chapters))?, Vec::new()),
        None => data
            .records_or_all(None)?
            .into_iter()
            .partition(|r| data.session(r).is_ok()),
    };
    let clock = |m: u32| format!("{}:{:02}", m / 60, m % 60);
    let mut rows = Vec::new();
    let (mut at, mut since_break, mut next_break) = (0u32, 0u32, breaks.iter());
    if intro > 0 {
        rows.push(format!(
            "<tr><td>{}</td><td>Introduction and setup</td><td>{intro}</td><td></td></tr>",
            clock(at)
        ));
        at += intro;
    }
    for record in &chapters {
        let s = data.session(record)?;
        if since_break + s.total() > every
            && let Some(b) = next_break.next()
        {
            rows.push(format!(
                "<tr class=\"break\"><td>{}</td><td><em>{}</em></td><td>{b}</td><td></td></tr>",
                clock(at),
                if *b >= 30 { "Lunch" } else { "Break" }
            ));
            at += b;
            since_break = 0;
        }
        // The run column's legend is on the workshop page: live or before class, the full run's
        // time on the chapter's machine, and one repetition of every case.
        let run = match full_run(data, s) {
            Some(run) => {
                let when = if run.live { "live" } else { "before class" };
                let classroom = run.one_rep.map_or(String::new(), |r| {
                    format!("<br><code>--reps 1</code>: {}", about(r))
                });
                format!(
                    "<strong>{when}</strong>: full run {}{classroom}",
                    duration(run.seconds).replace(' ', "\u{a0}")
                )
            }
            None => "<strong>quick mode</strong>, live".into(),
        };
        // The chapter by its name (its exercises' page is titled after it), and what the slot's
        // exercises are: the fix-it exercise and the predict-then-measure question.
        let machine = data.machine_for(record, None);
        let rec = data.record(&machine, record).ok();
        let title = rec
            .as_ref()
            .map_or(s.title.clone(), |r| chapter_heading(record, &r.title));
        rows.push(format!(
            "<tr><td>{}</td><td><a href=\"{}\">{}</a><br><small>{} reading · {} demo · {} exercises</small>{}</td><td>{}</td><td>{}</td></tr>",
            clock(at),
            esc(&s.page),
            esc(&title),
            s.reading,
            s.demo,
            s.exercises,
            slot_exercises(data, record, rec.as_deref())?,
            s.total(),
            run
        ));
        at += s.total();
        since_break += s.total();
    }
    if at > length {
        return Err(format!(
            "this schedule takes {at} min, more than its length={length}: drop a chapter or shorten the chapters' minutes"
        ));
    }
    let waiting = if unscheduled.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = unscheduled
            .iter()
            .map(|r| {
                let title = data
                    .chapters()
                    .iter()
                    .find(|m| m.name == *r)
                    .map_or(r.clone(), |m| chapter_heading(r, &m.title));
                esc(&title)
            })
            .collect();
        format!(
            "<p class=\"schedule-waiting\">Not in a schedule yet, since its page states no workshop minutes: {}.</p>\n",
            names.join("; ")
        )
    };
    Ok(format!(
        // The total comes first: after the table, a page break could leave it alone on a page.
        "<p class=\"schedule-total\">{at} of {length} minutes:</p>\n<table class=\"measure schedule\"><thead><tr><th>at</th><th>session and its exercises</th><th>min</th><th>run: the full run (live or before class), and one repetition</th></tr></thead><tbody>{}</tbody></table>\n{waiting}",
        rows.join("")
    ))
}

/// A schedule slot's exercises, from the chapter's manifest: its fix-it exercise (its
/// name, what the course runner calls it) and its predict-then-measure question, with the run
/// that answers it and how long that measures. A chapter without either, or a question whose
/// experiment the chapter's record lacks, fails the build.
fn slot_exercises(data: &Data, record: &str, rec: Option<&Record>) -> Result<String, String> {
    let fixes = course::exercises(data.root()).map_err(|e| format!("{e:#}"))?;
    let fixes: Vec<&course::Exercise> = fixes.iter().filter(|e| e.chapter == record).collect();
    let predicts = course::predictions(data.root()).map_err(|e| format!("{e:#}"))?;
    let predicts: Vec<&course::Predict> = predicts.iter().filter(|p| p.chapter == record).collect();
    if fixes.is_empty() || predicts.is_empty() {
        return Err(format!(
            "listings/{record}/chapter.toml has no {}: a chapter in a workshop's schedule needs both, its fix-it exercise ([[exercise]]) and its predict-then-measure question ([predict])",
            if fixes.is_empty() {
                "[[exercise]]"
            } else {
                "[predict]"
            }
        ));
    }
    let mut items = Vec::new();
    for e in fixes {
        items.push(format!(
            "<li>fix it: <code>{}</code> ({})</li>",
            esc(&e.name),
            code_spans(&esc(&e.title))
        ));
    }
    for p in predicts {
        let time = match rec {
            Some(rec) => {
                if !rec.series.iter().any(|s| s.experiment == p.experiment) {
                    let mut known: Vec<String> =
                        rec.series.iter().map(|s| s.experiment.clone()).collect();
                    known.sort();
                    known.dedup();
                    return Err(format!(
                        "listings/{record}/chapter.toml: the predict-then-measure question runs experiment `{}`, which its record does not have; it has {}",
                        p.experiment,
                        list(&known)
                    ));
                }
                // As the chapter's own predict item says it: from every machine's record.
                RunEstimate::of(data, record, None, &[p.experiment.as_str()], Some(1), 1.0)
                    .map_or(String::new(), |estimate| format!(", {}", estimate.shown()))
            }
            None => String::new(),
        };
        items.push(format!(
            "<li>predict, then measure: {} <small>(<code>--filter {} --reps 1</code>{time})</small></li>",
            code_spans(&esc(&p.question)),
            esc(&p.experiment)
        ));
    }
    Ok(format!(
        "<ul class=\"schedule-items\">{}</ul>",
        items.join("")
    ))
}

#[cfg(test)]
mod tests {
    use super::{RunEstimate, about_range, has_every_cell};
    use records::record::Record;

    #[test]
    fn a_run_filtered_to_some_cases_says_nothing_of_the_whole_experiment() {
        let cell = |case| {
            (
                "throughput",
                case,
                "kanal",
                "messages_per_s",
                "1/s",
                &[1.0][..],
            )
        };
        let full = Record::sketch("ch99-demo", "a", &[], &[cell("cap1"), cell("cap1024")]);
        let part = Record::sketch("ch99-demo", "b", &[], &[cell("cap1")]);
        assert!(has_every_cell(&full, &full, &[]));
        assert!(has_every_cell(&full, &part, &["throughput"]));
        assert!(!has_every_cell(&part, &full, &["throughput"]));
        assert!(!has_every_cell(&part, &full, &[]));
    }

    fn estimate(machines: &[(&str, f64)]) -> RunEstimate {
        RunEstimate {
            record: "ch99-demo".into(),
            machines: machines.iter().map(|(m, s)| (m.to_string(), *s)).collect(),
        }
    }

    #[test]
    fn machines_that_agree_give_one_figure_and_others_a_range() {
        // One machine: its figure, and its name in the title.
        let one = estimate(&[("quiet", 42.0)]);
        assert_eq!(one.shown(), "about 40 seconds");
        assert_eq!(
            one.title(),
            "estimated from the run times kept in the record of ch99-demo on quiet"
        );
        // Within 1.5×: the page's machine's figure; the title names both, each with its own.
        let agree = estimate(&[("quiet", 42.0), ("busy", 55.0)]);
        assert_eq!(agree.shown(), "about 40 seconds");
        assert_eq!(
            agree.title(),
            "estimated from the run times kept in the records of ch99-demo on 2 machines (quiet: about 40 seconds; busy: about 55 seconds)"
        );
        // Further apart: a range from the fastest to the slowest, whichever is the page's.
        assert_eq!(
            estimate(&[("busy", 87.0), ("quiet", 42.0)]).shown(),
            "about 40 seconds to a minute and a half"
        );
        assert_eq!(
            estimate(&[("a", 10.0), ("b", 20.0), ("c", 14.0)]).shown(),
            "about 10 to 20 seconds"
        );
        // Apart by more than 1.5× but the same when rounded: one figure.
        assert_eq!(estimate(&[("a", 2.0), ("b", 7.0)]).shown(), "a few seconds");
    }

    #[test]
    fn a_range_says_its_unit_once_where_both_ends_share_it() {
        assert_eq!(about_range(10.0, 20.0), "about 10 to 20 seconds");
        assert_eq!(about_range(3.0, 20.0), "a few to 20 seconds");
        assert_eq!(about_range(120.0, 210.0), "about 2 to 3½ minutes");
        assert_eq!(
            about_range(42.0, 87.0),
            "about 40 seconds to a minute and a half"
        );
        assert_eq!(about_range(40.0, 120.0), "about 40 seconds to 2 minutes");
        assert_eq!(about_range(60.0, 180.0), "about a minute to 3 minutes");
    }

    #[test]
    fn minutes_are_whole_and_repetitions_one_or_more() {
        use super::super::typed;
        use crate::render::Kind;
        let Ok(Kind::Schedule(s)) = typed("{{#measure schedule length=210 breaks=15,45 every=60}}")
        else {
            panic!("a schedule")
        };
        let breaks: Vec<u32> = s.breaks.iter().map(|b| b.0).collect();
        assert_eq!(
            (s.length.0, breaks, s.every.map(|e| e.0)),
            (210, vec![15, 45], Some(60))
        );
        let e = |t: &str| typed(t).err().unwrap();
        assert_eq!(
            e("{{#measure schedule length=90 breaks=15,lunch}}"),
            "breaks=`15,lunch`: `lunch`: a whole number of minutes"
        );
        assert!(
            e("{{#measure minutes record=ch01 reading=1 demo=1}}")
                .starts_with("missing `exercises=…`")
        );
        assert_eq!(
            e("{{#measure runtime record=ch01 reps=0}}"),
            "reps=`0`: a whole number of repetitions, 1 or more"
        );
        assert_eq!(
            e("{{#measure runtime record=ch01 scale=1/0}}"),
            "scale=`1/0`: a positive number or fraction, e.g. 5/3"
        );
        let Ok(Kind::Runtime(r)) =
            typed("{{#measure runtime record=ch01 experiment=a,b scale=5/3}}")
        else {
            panic!("a runtime")
        };
        assert_eq!(r.experiment, ["a", "b"]);
        assert!((r.scale.unwrap().0 - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            e("{{#measure hints name=x}}"),
            "unknown argument `name` for `hints` (allowed: exercise)"
        );
    }
}
