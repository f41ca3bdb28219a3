//! The Machines page for a class: thirty machines' records, generated from a fixture record with
//! figures varied so that some claims fail on some machines, rendered by claim (held on k of N,
//! the spread of the figure, the machines where it did not hold) and by machine where asked.

use mdbook_measured::{Data, expand};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const MACHINES: usize = 30;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn student(i: usize) -> String {
    format!("student-{i:02}")
}

/// Sets a series' values and the median, min and max the record keeps beside them.
fn set_values(series: &mut Value, values: &[f64]) {
    let s = measure::Summary::of(values).expect("figures to summarise");
    series["values"] = json!(values);
    series["median"] = json!(s.median);
    series["min"] = json!(s.min);
    series["max"] = json!(s.max);
}

/// A class of thirty under a temporary root, from `test-machine`'s record of ch99-demo (one
/// worker, so `demo-stall` and `demo-impossible` both read burst 1's inline p99 over the fix's):
///
/// - student-01..03: inline 2×, 3× and 4× the fix: `demo-stall` (≥ 10×) refuted;
/// - student-04: 5×, 15×, 8×, 12× and 20× in its five repetitions: not shown, figure 12×;
/// - student-05..29: 10 × i (50× to 290×): held;
/// - student-30: a filtered run without burst 1's p99: both n/a there.
///
/// `demo-impossible` (≥ 1,000×) is refuted wherever it is measured, `demo-fix-lowest` (burst 2)
/// and the invariant hold everywhere.
fn class_of_thirty() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let listing = root.join("listings/ch99-demo");
    std::fs::create_dir_all(&listing).unwrap();
    std::fs::copy(
        fixtures().join("listings/ch99-demo/claims.toml"),
        listing.join("claims.toml"),
    )
    .unwrap();
    let base: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("data/test-machine/ch99-demo.json")).unwrap(),
    )
    .unwrap();
    let fix = 100_000.0; // ns: every repetition alike, so that each ratio is exact
    for i in 1..=MACHINES {
        let name = student(i);
        let mut rec = base.clone();
        rec["machine"]["name"] = json!(name);
        let ratios: Vec<f64> = match i {
            1..=3 => vec![(i + 1) as f64; 5],
            4 => vec![5.0, 15.0, 8.0, 12.0, 20.0],
            _ => vec![10.0 * i as f64; 5],
        };
        let series = rec["series"].as_array_mut().unwrap();
        if i == MACHINES {
            series.retain(|s| !(s["case"] == "1" && s["metric"] == "p99"));
        }
        for s in series.iter_mut() {
            if s["case"] != "1" || s["metric"] != "p99" {
                continue;
            }
            if s["variant"] == "fix" {
                set_values(s, &[fix; 5]);
            } else {
                let inline: Vec<f64> = ratios.iter().map(|r| r * fix).collect();
                set_values(s, &inline);
            }
        }
        let folder = root.join("data").join(&name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("ch99-demo.json"),
            serde_json::to_string_pretty(&rec).unwrap(),
        )
        .unwrap();
    }
    dir
}

/// The row of the first table cell that shows `id`, up to the end of its row.
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<code>{id}</code>"))
        .unwrap_or_else(|| panic!("no {id}: {html}"));
    let end = start + html[start..].find("</tr>").unwrap();
    &html[start..end]
}

/// The machines table's row of `machine`.
fn machine_row<'a>(html: &'a str, machine: &str) -> &'a str {
    let start = html
        .find(&format!(
            "<td class=\"class-machine\"><code>{machine}</code>"
        ))
        .unwrap_or_else(|| panic!("no row for {machine}: {html}"));
    let end = start + html[start..].find("</tr>").unwrap();
    &html[start..end]
}

#[test]
fn thirty_machines_read_as_held_on_k_of_n_with_the_spread_and_the_failures_named() {
    let class = class_of_thirty();
    let data = Data::new(class.path(), "student-05");
    // The build refuses a table wider than the page: that it renders at all is the width check.
    let html = expand(&data, "{{#measure class records=ch99-demo}}").unwrap();

    // A heading per chapter, in the page's Markdown (so in the sidebar), before its table.
    let heading = html
        .find("\n### Chapter 99: Demo {#class-ch99-demo}\n")
        .expect("a heading for the chapter");
    assert!(heading < html.find("<table class=\"measure class\"").unwrap());
    assert!(
        html.contains("Records from 30 of 30 machines. Held on every machine that measured it: 1 of 4 conclusions."),
        "{html}"
    );

    // The claim's sentence in plain view, its id small beside it.
    let stall = row(&html, "demo-stall");
    let says = "inline takes the p99 to at least 10× the fix's at burst = workers";
    assert!(
        html.contains(&format!(
            "<td class=\"class-claim\">{says}<span class=\"class-id\"><code>demo-stall</code></span>"
        )),
        "{html}"
    );
    // Held on 25 of 30: one not shown, three refuted, one not measured.
    assert!(stall.contains("<strong>25 of 30</strong>"), "{stall}");
    assert!(stall.contains("1 ?<br>3 ✗<br>1 n/a"), "{stall}");
    // Across the 29 machines that measured it: 2×, 3×, 4×, 12×, then 50× to 290×; the median is
    // the fifteenth, student-15's 150×.
    assert!(
        stall.contains("150× <span class=\"spread\">2.00–290×</span>"),
        "{stall}"
    );
    assert!(
        stall.contains("<span class=\"spread class-bound\">claim: ≥\u{a0}10×</span>"),
        "{stall}"
    );
    // The machines where it did not hold, named with their figures; the one without the cells.
    for (i, sign, figure) in [
        (1, "✗", "2.00×"),
        (2, "✗", "3.00×"),
        (3, "✗", "4.00×"),
        (4, "?", "12×"),
    ] {
        let named = format!("{sign} <code>{}</code> {figure}</span>", student(i));
        assert!(stall.contains(&named), "{named}: {stall}");
    }
    assert!(stall.contains("n/a on <code>student-30</code>"), "{stall}");
    for i in 5..MACHINES {
        assert!(!stall.contains(&student(i)), "{}: {stall}", student(i));
    }

    // Refuted wherever measured; held everywhere.
    let impossible = row(&html, "demo-impossible");
    assert!(
        impossible.contains("<strong>0 of 30</strong>") && impossible.contains("29 ✗<br>1 n/a"),
        "{impossible}"
    );
    let lowest = row(&html, "demo-fix-lowest");
    assert!(
        lowest.contains("<strong>30 of 30</strong>") && lowest.contains(">none<"),
        "{lowest}"
    );
    let invariant = row(&html, "demo-jobs-ran");
    assert!(
        invariant.contains(" · invariant") && invariant.contains("<strong>30 of 30</strong>"),
        "{invariant}"
    );
    // No spread where every machine gave the same figure.
    assert!(
        invariant.contains("30.5 ms <span class=\"spread\">the same on all 30</span>"),
        "{invariant}"
    );

    // A totals row per machine, and the chapters where something did not hold there.
    let one = machine_row(&html, "student-01");
    assert!(
        one.contains("<td>1</td><td>0</td><td>3</td><td>0</td>"),
        "{one}"
    );
    assert!(
        one.contains("<a href=\"#class-ch99-demo\">Demo</a>: 3 ✗ refuted"),
        "{one}"
    );
    let four = machine_row(&html, "student-04");
    assert!(
        four.contains("<td>1</td><td>2</td><td>1</td><td>0</td>")
            && four.contains("1 ✗ refuted, 2 ? not shown"),
        "{four}"
    );
    let thirty = machine_row(&html, "student-30");
    assert!(
        thirty.contains("<td>1</td><td>0</td><td>0</td><td>3</td>")
            && thirty.contains("<td class=\"class-failed\">none</td>"),
        "{thirty}"
    );
    assert!(
        machine_row(&html, "student-05").contains("(the book's)"),
        "the book's machine is marked"
    );
}

#[test]
fn one_column_per_machine_only_where_asked_and_only_as_many_as_fit() {
    let class = class_of_thirty();
    let data = Data::new(class.path(), "student-05");
    // Thirty columns cannot fit the page: refused, with the way out.
    let e = expand(
        &data,
        "{{#measure class records=ch99-demo columns=machines}}",
    )
    .unwrap_err();
    assert!(
        e.contains("px wide") && e.contains("machines=a,b,c") && e.contains("held on k of N"),
        "{e}"
    );
    // Three named machines: a column each, with each one's totals at the bottom.
    let html = expand(
        &data,
        "{{#measure class records=ch99-demo machines=student-01,student-04,student-30}}",
    )
    .unwrap();
    let table = &html[html.find("<table class=\"measure class\"").unwrap()..];
    assert!(
        table.contains("<th>claim</th><th><code>student-01</code></th><th><code>student-04</code></th><th><code>student-30</code></th></tr>"),
        "{table}"
    );
    assert!(!table.contains("student-05"), "{table}");
    let stall = row(table, "demo-stall");
    assert!(
        stall.contains("✗ 2.00×") && stall.contains("? 12×") && stall.contains(">n/a<"),
        "{stall}"
    );
    assert!(
        table.contains("<td>1 held<br>0 not shown<br>3 refuted<br>0 n/a</td>"),
        "{table}"
    );
    assert!(
        table.contains("<td>1 held<br>0 not shown<br>0 refuted<br>3 n/a</td>"),
        "{table}"
    );
}

#[test]
fn a_bad_class_key_or_value_fails_with_what_is_allowed() {
    let class = class_of_thirty();
    let data = Data::new(class.path(), "student-05");
    let error = |d: &str| expand(&data, d).unwrap_err();
    let e = error("{{#measure class records=ch99-demo columns=wide}}");
    assert!(
        e.contains("columns=`wide`: use claims") && e.contains("or machines"),
        "{e}"
    );
    let e = error("{{#measure class records=ch99-demo machines=student-01,nobody}}");
    assert!(
        e.contains("no machine `nobody` under data/") && e.contains("student-30"),
        "{e}"
    );
    let e = error("{{#measure class records=ch99-demo columns=claims machines=student-01}}");
    assert!(e.contains("goes with columns=machines"), "{e}");
    let e = error("{{#measure class records=ch99-demo colour=red}}");
    assert!(
        e.contains("unknown argument `colour`") && e.contains("records, columns, machines"),
        "{e}"
    );
    // Without records=, every chapter with a manifest; here there is none.
    let e = error("{{#measure class}}");
    assert!(
        e.contains("listings/*/chapter.toml") && e.contains("records=ch01-blocking"),
        "{e}"
    );
}
