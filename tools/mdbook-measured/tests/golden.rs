//! Golden tests: fixed records in, exact Markdown/HTML out. `UPDATE_GOLDEN=1 cargo test` rewrites
//! the expected files after a deliberate change; review the diff before committing it.

use mdbook_measured::{Data, expand};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The fixtures' records, with their chapters' manifests (`listings/*/chapter.toml`).
fn data() -> Data {
    let chapters = records::chapter::all(&fixtures()).unwrap();
    Data::new(&fixtures(), "test-machine")
        .with_chapters(chapters)
        .unwrap()
}

#[test]
fn every_kind_renders_as_recorded() {
    let input = std::fs::read_to_string(fixtures().join("directives.md")).unwrap();
    let got = expand(&data(), &input).unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/directives.out");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden).expect("golden file (UPDATE_GOLDEN=1 creates it)");
    assert_eq!(got, want, "output differs from tests/golden/directives.out");
}

fn error_of(directive: &str) -> String {
    expand(&data(), directive).unwrap_err()
}

#[test]
fn errors_name_the_directive_and_what_is_available() {
    let e = error_of("{{#measure value record=ch98-missing case=1 variant=inline metric=p99}}");
    assert!(
        e.contains("directive `{{#measure value record=ch98-missing"),
        "{e}"
    );
    assert!(
        e.contains("no record data/test-machine/ch98-missing.json") && e.contains("ch99-demo"),
        "{e}"
    );

    let e = error_of("{{#measure value record=ch99-demo case=7 variant=inline metric=p99}}");
    assert!(
        e.contains("no case `7`") && e.contains("available: 0, 1, 2"),
        "{e}"
    );

    let e = error_of("{{#measure value record=ch99-demo case=1 variant=inline metric=p98}}");
    assert!(
        e.contains("no metric `p98`") && e.contains("p99, heavy_job"),
        "{e}"
    );

    let e = error_of("{{#measure version record=ch99-demo crate=rayon}}");
    assert!(
        e.contains("not built with `rayon`") && e.contains("tokio"),
        "{e}"
    );

    let e = error_of("{{#measure value record=ch99-demo case=1 metric=p99}}");
    assert!(
        e.contains("which variant?") && e.contains("inline, fix"),
        "{e}"
    );

    let e = error_of("{{#measure topology machines=old-machine}}");
    assert!(
        e.contains("data/old-machine/machine.toml")
            && e.contains("no record in data/old-machine carries its machine's facts"),
        "{e}"
    );
    let e = error_of("{{#measure topology machine=test-machine}}");
    assert!(e.contains("unknown argument `machine`"), "{e}");
    let e = error_of("{{#measure topology machines=reader-machine}}");
    assert!(e.contains("unknown key `colour`"), "{e}");

    let e = error_of("{{#measure histogram record=ch99-demo}}");
    assert!(e.contains("unknown kind `histogram`"), "{e}");

    let e = error_of("{{#measure table record=ch99-demo metric=p99 colour=red}}");
    assert!(e.contains("unknown argument `colour`"), "{e}");

    let e = error_of("{{#measure chart record=ch99-demo metric=p99}}");
    assert!(e.contains("caption"), "{e}");

    let e = error_of("{{#measure ratio record=ch99-demo case=1 variant=inline metric=p99}}");
    assert!(e.contains("over."), "{e}");

    let e = error_of("{{#measure difference record=ch99-demo case=1 variant=inline metric=p99}}");
    assert!(e.contains("minus."), "{e}");
    let e = error_of(
        "{{#measure difference record=ch99-demo case=1 variant=inline metric=p99 minus.metric=heavy_job}}",
    );
    assert!(e.contains("cannot subtract ms from ns"), "{e}");
}

#[test]
fn a_bad_chart_kind_or_reference_line_fails_with_what_to_write() {
    let chart = |extra: &str| {
        error_of(&format!(
            "{{{{#measure chart record=ch99-demo metric=p99 caption=\"c\" {extra}}}}}"
        ))
    };
    let e = chart("kind=pie");
    assert!(
        e.contains("kind=`pie`") && e.contains("line") && e.contains("bar") && e.contains("dot"),
        "{e}"
    );
    for bad in [
        "ref-line=10",
        "ref-line=\"ten:a tenth\"",
        "ref-line=\"10:\"",
    ] {
        let e = chart(bad);
        assert!(
            e.contains("ref-line=`") && e.contains("use VALUE:LABEL") && e.contains("(ns)"),
            "{bad}: {e}"
        );
    }
    let e = chart("case-names=\"7:seven\"");
    assert!(e.contains("case-names") && e.contains("no case `7`"), "{e}");
}

#[test]
fn a_claim_the_book_machine_contradicts_fails_with_its_figure() {
    let e = error_of("{{#measure claim record=ch99-demo id=demo-impossible}}");
    assert!(
        e.contains("claim `demo-impossible` is refuted on test-machine")
            && e.contains("389× (90% CI 358–424×; claim: ≥ 1,000×)"),
        "{e}"
    );
    let e = error_of("{{#measure claim record=ch99-demo id=demo-nope}}");
    assert!(
        e.contains("no claim `demo-nope`") && e.contains("demo-stall"),
        "{e}"
    );
    let e = error_of("{{#measure claim record=ch99-demo id=demo-stall show=loud}}");
    assert!(e.contains("show=`loud`"), "{e}");
}

#[test]
fn a_readers_book_shows_their_figures_and_which_claims_held_there() {
    let data = data().with_reader(Some("reader-machine".into()));
    let page = "# Demo\n\nStall: {{#measure claim record=ch99-demo id=demo-stall}}; lowest{{#measure claim record=ch99-demo id=demo-fix-lowest show=mark}}; burst 1: {{#measure value record=ch99-demo case=1 variant=fix metric=p99}}; machine: {{#measure machine record=ch99-demo field=cpu}}.\n";
    let out = expand(&data, page).unwrap();
    // workers = 2 there: burst 2 is "burst = workers", where inline was only 5× the fix.
    assert!(
        out.contains(
            ">5.00×</span> <span class=\"claim-interval\">(90% CI 4.40–6.00×)</span> <span class=\"claim-verdict not-held\">✗ refuted on reader-machine (claim: ≥ 10×; missed the bound by 50%)</span>"
        ),
        "{out}"
    );
    // Twice the worker count is burst 4 there, which that run did not measure.
    assert!(
        out.contains("not checked on reader-machine") && out.contains("demo/4/fix/p99"),
        "{out}"
    );
    assert!(
        out.contains("measure-na") && out.contains("no case `1`"),
        "{out}"
    );
    assert!(out.contains("machine: Reader CPU"), "{out}");
    assert!(data.take_fallbacks().is_empty());
    // A record the reader lacks comes from the book's machine, and the page says so.
    let other = Data::new(&fixtures(), "test-machine").with_reader(Some("broken-machine".into()));
    let _ = other.machine_for("ch98-missing", None);
    assert_eq!(other.take_fallbacks(), vec!["ch98-missing".to_string()]);
}

#[test]
fn a_table_too_wide_for_the_page_is_refused_with_a_way_out() {
    let e = error_of(
        "{{#measure table record=ch98-wide case=1 rows=variant cols=metric metrics=p50,p99,p99.9,max,heavy_job,tick_lag_max,drain}}",
    );
    assert!(e.contains("px wide") && e.contains("split it"), "{e}");
    let ok = expand(
        &data(),
        "{{#measure table record=ch98-wide case=1 rows=variant cols=metric metrics=p50,p99,p99.9,max}}",
    )
    .unwrap();
    // A percentile cell says how many samples stand behind it.
    assert!(
        ok.contains("title=\"over 6,250 samples per run: 62 of them above it\""),
        "{ok}"
    );
    assert!(
        ok.contains("title=\"the largest of 6,250 samples\""),
        "{ok}"
    );
}

#[test]
fn tables_and_figures_are_numbered_and_referenced_by_id() {
    let page = "# Demo\n\nSee {{#measure ref id=bursts}} and {{#measure ref id=chart}}.\n\n{{#measure table record=ch99-demo metric=p99 id=bursts caption=\"p99 by burst\"}}\n\n{{#measure chart record=ch99-demo metric=p99 id=chart caption=\"The same, drawn\"}}\n";
    let pages = vec![
        (
            "other.md".to_string(),
            Some("2".to_string()),
            "{{#measure table record=ch99-demo metric=p99 id=first}}".to_string(),
        ),
        (
            "demo.md".to_string(),
            Some("3".to_string()),
            page.to_string(),
        ),
    ];
    let data = data().with_labels(&pages).unwrap();
    let out = expand(&data, page).unwrap();
    assert!(out.contains("See <a href=\"demo.html#m-bursts\">Table 3.1</a> and <a href=\"demo.html#m-chart\">Figure 3.1</a>."), "{out}");
    assert!(
        out.contains(
            "<table class=\"measure\" id=\"m-bursts\"><caption>Table 3.1. p99 by burst <span class=\"spread-key\">"
        ),
        "{out}"
    );
    assert!(
        out.contains("<figure class=\"measure-figure\" id=\"m-chart\">")
            && out.contains("<figcaption>Figure 3.1. The same, drawn</figcaption>"),
        "{out}"
    );
    let e = expand(&data, "{{#measure ref id=nowhere}}").unwrap_err();
    assert!(
        e.contains("no table or figure with id `nowhere`") && e.contains("bursts"),
        "{e}"
    );
    let twice = vec![
        (
            "a.md".to_string(),
            None,
            "{{#measure table record=ch99-demo metric=p99 id=x}}".to_string(),
        ),
        (
            "b.md".to_string(),
            None,
            "{{#measure table record=ch99-demo metric=p99 id=x}}".to_string(),
        ),
    ];
    let e = data_twice(twice);
    assert!(e.contains("id `x` is given twice"), "{e}");
}

fn data_twice(pages: Vec<(String, Option<String>, String)>) -> String {
    match data().with_labels(&pages) {
        Ok(_) => "no error".into(),
        Err(e) => e,
    }
}

#[test]
fn corrupt_and_other_schema_records_name_the_file() {
    let e = error_of(
        "{{#measure value record=ch99-demo machine=old-machine case=1 variant=inline metric=p99}}",
    );
    assert!(
        e.contains("old-machine/ch99-demo.json") && e.contains("schema version 99"),
        "{e}"
    );
    let e = error_of(
        "{{#measure value record=ch99-demo machine=broken-machine case=1 variant=inline metric=p99}}",
    );
    assert!(
        e.contains("broken-machine/ch99-demo.json") && e.contains("not a valid record"),
        "{e}"
    );
}

#[test]
fn a_class_page_shows_every_machine_and_each_claim_on_each() {
    let html = expand(&data(), "{{#measure class records=ch99-demo}}").unwrap();
    for machine in ["test-machine", "reader-machine", "old-machine"] {
        assert!(
            html.contains(&format!("<code>{machine}</code>")),
            "{machine}: {html}"
        );
    }
    assert!(
        !html.contains("<code>published</code>"),
        "published figures are not a machine"
    );
    let row = |html: &str, id: &str| {
        let start = html.find(&format!("<code>{id}</code>")).unwrap();
        html[start..start + html[start..].find("</tr>").unwrap()].to_string()
    };
    // By claim: the claim no machine can meet held nowhere, refuted where it was read (the
    // reader's run lacks its burst)...
    let impossible = row(&html, "demo-impossible");
    assert!(
        impossible.contains("<strong>0 of 4</strong>") && impossible.contains("1 ✗<br>3 n/a"),
        "{impossible}"
    );
    // ...and the stall held on the book's machine but not on the reader's, which is named; the
    // records that cannot be read are named too.
    let stall = row(&html, "demo-stall");
    assert!(
        stall.contains("<strong>1 of 4</strong>")
            && stall.contains("✗ <code>reader-machine</code> 5.00×")
            && stall.contains("<code>old-machine</code> (unreadable)"),
        "{stall}"
    );
    // By machine, where asked: a column each, with a ✓ or ✗ in each cell.
    let wide = expand(
        &data(),
        "{{#measure class records=ch99-demo machines=test-machine,reader-machine}}",
    )
    .unwrap();
    let table = &wide[wide.find("<table class=\"measure class\"").unwrap()..];
    let impossible = row(table, "demo-impossible");
    assert!(
        impossible.contains("✗") && !impossible.contains("✓"),
        "{impossible}"
    );
    let stall = row(table, "demo-stall");
    assert!(stall.contains("✓") && stall.contains("✗"), "{stall}");
}

fn with_sessions(pages: &[(&str, &str)]) -> Data {
    let pages: Vec<(String, Option<String>, String)> = pages
        .iter()
        .map(|(p, c)| (p.to_string(), None, c.to_string()))
        .collect();
    data().with_sessions(&pages).unwrap()
}

#[test]
fn a_schedule_adds_the_chapters_minutes_and_breaks_and_refuses_to_overrun() {
    let data = with_sessions(&[
        (
            "a.md",
            "# Chapter A\n{{#measure minutes record=ch99-demo reading=20 demo=10 exercises=30}}",
        ),
        (
            "b.md",
            "# Chapter B\n{{#measure minutes record=ch98-wide reading=10 demo=10 exercises=20}}",
        ),
    ]);
    let fits =
        "{{#measure schedule length=120 intro=5 breaks=15 every=60 chapters=ch99-demo,ch98-wide}}";
    let html = expand(&data, fits).unwrap();
    // 0:00 intro, 0:05 A (60), 1:05 break (15), 1:20 B (40): 120 minutes.
    assert!(html.contains("<td>1:05</td><td><em>Break</em>"), "{html}");
    // A slot by its chapter's name, linked to the page that holds its exercises.
    assert!(
        html.contains("<td>1:20</td><td><a href=\"b.html\">Chapter 98: Wide</a>"),
        "{html}"
    );
    assert!(html.contains("120 of 120 minutes"), "{html}");
    // Each slot names its exercises from its chapter's manifest: the fix-it exercise by the name
    // the course runner knows, the predict-then-measure question with the run that answers it.
    assert!(
        html.contains("<li>fix it: <code>demo-fix</code> (Fix the demo)</li>"),
        "{html}"
    );
    assert!(
        html.contains("<li>predict, then measure: Which is lower at burst 2: <code>inline</code> or the fix? <small>(<code>--filter demo --reps 1</code>, about 30 seconds)</small></li>"),
        "{html}"
    );
    assert!(html.contains("<li>fix it: <code>wide-fix</code>"), "{html}");

    let over =
        "{{#measure schedule length=110 intro=5 breaks=15 every=60 chapters=ch99-demo,ch98-wide}}";
    let e = expand(&data, over).unwrap_err();
    assert!(e.contains("takes 120 min, more than its length=110"), "{e}");

    // A chapter the course has no exercises for cannot take a slot.
    let bare = with_sessions(&[(
        "c.md",
        "# Chapter C\n{{#measure minutes record=ch97-bare reading=5 demo=5 exercises=5}}",
    )]);
    let e = expand(&bare, "{{#measure schedule length=300 chapters=ch97-bare}}").unwrap_err();
    assert!(
        e.contains("listings/ch97-bare/chapter.toml has no [[exercise]]"),
        "{e}"
    );
    let e = expand(
        &data,
        "{{#measure schedule length=300 chapters=ch99-demo colour=red}}",
    )
    .unwrap_err();
    assert!(
        e.contains("unknown argument `colour`") && e.contains("length, chapters"),
        "{e}"
    );
    let e = expand(
        &data,
        "{{#measure schedule length=long chapters=ch99-demo}}",
    )
    .unwrap_err();
    assert!(
        e.contains("length=`long`: a whole number of minutes"),
        "{e}"
    );

    let missing = "{{#measure schedule length=300 chapters=ch99-demo,ch97-none}}";
    let e = expand(&data, missing).unwrap_err();
    assert!(
        e.contains("no page states the minutes of `ch97-none`"),
        "{e}"
    );
}

#[test]
fn a_chapter_states_its_minutes_once() {
    let pages = vec![
        (
            "a.md".to_string(),
            None,
            "{{#measure minutes record=ch99-demo reading=1 demo=1 exercises=1}}".to_string(),
        ),
        (
            "b.md".to_string(),
            None,
            "{{#measure minutes record=ch99-demo reading=2 demo=2 exercises=2}}".to_string(),
        ),
    ];
    let e = data().with_sessions(&pages).err().unwrap();
    assert!(
        e.contains("a second minutes directive for ch99-demo"),
        "{e}"
    );
    let html = expand(
        &with_sessions(&[(
            "a.md",
            "{{#measure minutes record=ch99-demo reading=20 demo=10 exercises=30}}",
        )]),
        "{{#measure minutes record=ch99-demo reading=20 demo=10 exercises=30}}",
    )
    .unwrap();
    assert!(
        html.contains("20 min reading, 10 min demo, 30 min exercises (60 min)"),
        "{html}"
    );
    // 100 s in all, 90 of them measuring, in three repetitions: one repetition measures for 30.
    assert!(html.contains("took 1 min 40 s"), "{html}");
    assert!(
        html.contains("-- --reps 1</code>, measures for about 30 seconds"),
        "{html}"
    );
}

#[test]
fn a_run_time_is_estimated_from_the_record() {
    let data = data();
    let shown = |d: &str| expand(&data, d);
    assert!(
        shown("{{#measure runtime record=ch99-demo}}")
            .unwrap()
            .contains(">about 2½ minutes<")
    );
    assert!(
        shown("{{#measure runtime record=ch99-demo experiment=demo reps=1}}")
            .unwrap()
            .contains(">about 30 seconds<")
    );
    assert!(
        shown("{{#measure runtime record=ch99-demo reps=3}}")
            .unwrap()
            .contains(">about a minute and a half<")
    );
    let e = shown("{{#measure runtime record=ch99-demo experiment=nope}}").unwrap_err();
    assert!(
        e.contains("experiment `nope` is not in the record; it has demo"),
        "{e}"
    );
    assert!(
        shown("{{#measure runtime record=ch99-demo reps=1 scale=1/3}}")
            .unwrap()
            .contains(">about 10 seconds<")
    );
    let e = shown("{{#measure runtime record=ch99-demo scale=-2}}").unwrap_err();
    assert!(e.contains("scale=`-2`: a positive number"), "{e}");
    let e = shown("{{#measure runtime record=ch99-demo reps=0}}").unwrap_err();
    assert!(
        e.contains("reps=`0`: a whole number of repetitions, 1 or more"),
        "{e}"
    );
    let e = shown("{{#measure runtime record=ch98-wide}}").unwrap_err();
    assert!(
        e.contains("does not keep how long its experiments took"),
        "{e}"
    );
}

#[test]
fn a_machines_facts_come_from_its_newest_record_and_the_differences_are_marked() {
    // slow-machine's record carries its machine's facts; test-machine's records do not, and its
    // machine.toml stands in.
    let dir = with_second_machine(150.0);
    let path = dir.path().join("data/slow-machine/ch99-demo.json");
    let mut rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let facts = records::record::Facts {
        vendor: "TestVendor".into(),
        family_model: "family 9, model 9, stepping 1".into(),
        cpus_online: "0-1".into(),
        sockets: 1,
        cores: 2,
        threads_per_core: 1,
        clocksource: "kvm-clock".into(),
        timer: records::record::Timer {
            now_cost_ns: 40.0,
            resolution_ns: 30.0,
        },
        ..Default::default()
    };
    rec["machine"]["facts"] = serde_json::to_value(&facts).unwrap();
    std::fs::write(&path, rec.to_string()).unwrap();
    // One of test-machine's two records carries facts too: a column each, the older record's
    // from machine.toml.
    let wide = dir.path().join("data/test-machine/ch98-wide.json");
    let mut rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&wide).unwrap()).unwrap();
    let tsc = records::record::Facts {
        clocksource: "tsc".into(),
        ..facts.clone()
    };
    rec["machine"]["facts"] = serde_json::to_value(&tsc).unwrap();
    std::fs::write(&wide, rec.to_string()).unwrap();
    let data = Data::new(dir.path(), "test-machine")
        .with_chapters(records::chapter::all(dir.path()).unwrap())
        .unwrap();
    let html = expand(
        &data,
        "{{#measure topology machines=test-machine,slow-machine}}",
    )
    .unwrap();
    assert!(
        html.contains("<th>test-machine: ch98-wide</th><th>test-machine: ch99-demo (machine.toml)</th><th>slow-machine: ch99-demo</th>"),
        "{html}"
    );
    // The same vendor: not marked; another clock source between the columns from facts: marked;
    // what no column recorded (the PAUSE's cost): no row.
    assert!(
        html.contains(
            "<tr><td>vendor</td><td>TestVendor</td><td>TestVendor</td><td>TestVendor</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<tr class=\"differs\"><td>clock source</td><td>tsc</td><td>tsc</td><td>kvm-clock</td></tr>"),
        "{html}"
    );
    assert!(
        html.contains("<td>Instant::now</td><td>40 ns a call, steps of 30 ns</td><td><em>not recorded</em></td><td>40 ns a call, steps of 30 ns</td>"),
        "{html}"
    );
    assert!(
        html.contains("(data/slow-machine/ch99-demo.json)"),
        "{html}"
    );
    assert!(!html.contains("spin_loop"), "{html}");
}

#[test]
fn the_first_screen_counts_the_other_machine_and_the_busy_neighbour_apart() {
    // A second book machine (ch98-wide's), with ch99-demo measured there only in the release
    // matrix at the Tokio ch99-demo pins; and ch99-demo beside a busy neighbour.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let manifest = dir.path().join("listings/ch98-wide/chapter.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("machine = \"test-machine\"", "machine = \"other-machine\""),
    )
    .unwrap();
    let text =
        std::fs::read_to_string(dir.path().join("data/test-machine/ch99-demo.json")).unwrap();
    for folder in ["other-machine-tokio-1-54-1", "test-machine-busy"] {
        let mut rec: serde_json::Value = serde_json::from_str(&text).unwrap();
        rec["machine"]["name"] = folder.into();
        std::fs::create_dir_all(dir.path().join("data").join(folder)).unwrap();
        std::fs::write(
            dir.path().join("data").join(folder).join("ch99-demo.json"),
            rec.to_string(),
        )
        .unwrap();
    }
    let data = Data::new(dir.path(), "test-machine")
        .with_chapters(records::chapter::all(dir.path()).unwrap())
        .unwrap();
    let html = expand(&data, "{{#measure verdict-summary record=ch99-demo}}").unwrap();
    assert!(
        html.contains("On other-machine (Tokio 1.54.1 in the release matrix, 5 repetitions): 3 of 4 conclusions held, 0 not shown, 1 refuted; refuted there: “inline is a thousand times the fix” (389×)."),
        "{html}"
    );
    assert!(
        html.contains(
            "Beside a busy neighbour (test-machine-busy, 5 repetitions): 3 of 4 conclusions held"
        ),
        "{html}"
    );
    // The Machines page: the other book machine with its record at the pin, the busy twin not
    // a machine of its own.
    let html = expand(&data, "{{#measure class records=ch99-demo}}").unwrap();
    assert!(
        html.contains("<code>other-machine</code> (the book's)")
            && html.contains("1 of 1 chapters (1 from the release matrix at the pinned Tokio)"),
        "{html}"
    );
    assert!(!html.contains("<code>test-machine-busy</code>"), "{html}");
    // In a reader's book the first screen is the reader's machine alone.
    let reader = Data::new(dir.path(), "test-machine")
        .with_chapters(records::chapter::all(dir.path()).unwrap())
        .unwrap()
        .with_reader(Some("reader-machine".into()));
    let html = expand(&reader, "{{#measure verdict-summary record=ch99-demo}}").unwrap();
    assert!(!html.contains("elsewhere"), "{html}");
}

/// The fixtures, with the record of ch99-demo on a second machine whose `demo` experiment took
/// `secs` seconds (against 150 s on test-machine).
fn with_second_machine(secs: f64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let text =
        std::fs::read_to_string(dir.path().join("data/test-machine/ch99-demo.json")).unwrap();
    let mut rec: serde_json::Value = serde_json::from_str(&text).unwrap();
    rec["machine"]["name"] = "slow-machine".into();
    rec["experiment_seconds"]["demo"] = secs.into();
    let folder = dir.path().join("data/slow-machine");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("ch99-demo.json"), rec.to_string()).unwrap();
    dir
}

#[test]
fn a_run_time_is_a_range_where_the_machines_differ() {
    // 150 s on test-machine, 450 s on slow-machine (three times as long): a range, from the
    // records of both, each named with its figure in the title; one repetition of five.
    let dir = with_second_machine(450.0);
    let data = Data::new(dir.path(), "test-machine");
    let html = expand(
        &data,
        "{{#measure runtime record=ch99-demo experiment=demo reps=1}}",
    )
    .unwrap();
    assert!(
        html.contains(">about 30 seconds to a minute and a half<"),
        "{html}"
    );
    assert!(
        html.contains(
            "title=\"estimated from the run times kept in the records of ch99-demo on 2 machines (test-machine: about 30 seconds; slow-machine: about a minute and a half)\""
        ),
        "{html}"
    );
    let html = expand(&data, "{{#measure runtime record=ch99-demo}}").unwrap();
    assert!(html.contains(">about 2½ to 7½ minutes<"), "{html}");
    // A machine named: its record alone.
    let html = expand(
        &data,
        "{{#measure runtime record=ch99-demo machine=slow-machine experiment=demo reps=1}}",
    )
    .unwrap();
    assert!(html.contains(">about a minute and a half<"), "{html}");
    assert!(
        html.contains("record of ch99-demo on slow-machine\""),
        "{html}"
    );
    // The schedule's predict-then-measure item gives the same range.
    let data = demo_sessions(dir.path());
    let html = expand(&data, "{{#measure schedule length=60 chapters=ch99-demo}}").unwrap();
    assert!(
        html.contains("--reps 1</code>, about 30 seconds to a minute and a half)"),
        "{html}"
    );
}

#[test]
fn a_run_time_is_one_figure_where_the_machines_agree() {
    // 150 s against 180 s: within 1.5×, so the page's machine's figure, both named in the title.
    let dir = with_second_machine(180.0);
    let data = Data::new(dir.path(), "test-machine");
    let html = expand(
        &data,
        "{{#measure runtime record=ch99-demo experiment=demo reps=1}}",
    )
    .unwrap();
    assert!(html.contains(">about 30 seconds<"), "{html}");
    assert!(
        html.contains(
            "on 2 machines (test-machine: about 30 seconds; slow-machine: about 35 seconds)"
        ),
        "{html}"
    );
}

#[test]
fn an_exercise_shows_its_hints_from_the_course() {
    let html = expand(&data(), "{{#measure hints exercise=demo-fix}}").unwrap();
    assert!(
        html.contains("cargo run -p course -- start demo-fix"),
        "{html}"
    );
    assert!(
        html.contains("<summary>Hint 1</summary><p>Look at the <code>&lt;loop&gt;</code>.</p>"),
        "{html}"
    );
    assert!(
        html.contains("<summary>Hint 2</summary><p>Move the work &amp; wait.</p>"),
        "{html}"
    );
    let e = expand(&data(), "{{#measure hints exercise=nope}}").unwrap_err();
    assert!(
        e.contains("no exercise `nope`; the exercises are: wide-fix, demo-fix"),
        "{e}"
    );
}

#[test]
fn an_exercise_answer_shows_the_claim_in_plain_view() {
    let html = expand(
        &data(),
        "{{#measure claim record=ch99-demo id=demo-stall show=answer}}",
    )
    .unwrap();
    assert!(
        html.starts_with("<code>demo-stall</code>: <span class=\"claim held\""),
        "{html}"
    );
    assert!(html.contains("</span> ✓ "), "{html}");
    let e = expand(
        &data(),
        "{{#measure claim record=ch99-demo id=demo-stall show=all}}",
    )
    .unwrap_err();
    assert!(e.contains("use figure, short, mark or answer"), "{e}");
}

#[test]
fn claims_link_to_their_chapters_list_which_shows_each_verdict_without_a_mouse() {
    let list = "# Demo\n\n## Checked claims\n\n{{#measure claims record=ch99-demo}}\n";
    let pages = vec![(
        "demo.md".to_string(),
        Some("1".to_string()),
        list.to_string(),
    )];
    let book = data().with_labels(&pages).unwrap();
    let out = expand(
        &book,
        "Stall: {{#measure claim record=ch99-demo id=demo-stall}}; lowest{{#measure claim record=ch99-demo id=demo-fix-lowest show=mark}}.",
    )
    .unwrap();
    assert!(
        out.contains("<a class=\"claim held\" href=\"demo.html#claim-ch99-demo-demo-stall\""),
        "{out}"
    );
    assert!(
        out.contains(
            "<a class=\"claim-mark held\" href=\"demo.html#claim-ch99-demo-demo-fix-lowest\""
        ),
        "{out}"
    );
    let listed = expand(&book, list).unwrap();
    // Each entry carries the anchor the figures link to, its verdict, sentence and bound.
    assert!(
        listed.contains("<li id=\"claim-ch99-demo-demo-stall\"><span class=\"claims-verdict held\">✓ held</span> <code>demo-stall</code>:"),
        "{listed}"
    );
    assert!(listed.contains("; claim: ≥ "), "{listed}");
    // A claim over a pattern: counted on the record in its bound, the pattern named beside it.
    assert!(
        listed.contains("invariant: ≥ 30 ms in each of 2</span><span class=\"depends\">cells: every one matching <code>demo/1/*/heavy_job</code>, 2 cells on this run"),
        "{listed}"
    );
    assert!(listed.contains("On test-machine: "), "{listed}");
    assert!(listed.contains(" conclusions held"), "{listed}");
    assert!(book.unlisted_claims().is_empty());

    // On a reader's machine the list counts what held there and shows what did not.
    let reader = book.with_reader(Some("reader-machine".into()));
    let listed = expand(&reader, list).unwrap();
    assert!(listed.contains("On reader-machine: "), "{listed}");
    assert!(
        listed.contains(
            "<span class=\"claims-verdict not-held\">✗ refuted</span> <code>demo-stall</code>"
        ),
        "{listed}"
    );

    // A claim stated where no page lists its chapter's claims is an error of the build.
    let bare = Data::new(&fixtures(), "test-machine");
    expand(&bare, "{{#measure claim record=ch99-demo id=demo-stall}}").unwrap();
    assert_eq!(bare.unlisted_claims(), vec!["ch99-demo".to_string()]);

    // One list per chapter.
    let twice = vec![
        ("a.md".to_string(), None, list.to_string()),
        ("b.md".to_string(), None, list.to_string()),
    ];
    let e = data_twice(twice);
    assert!(e.contains("listed twice") && e.contains("a.html"), "{e}");
}

#[test]
fn cases_are_shown_in_the_readers_words_and_units() {
    let out = expand(
        &data(),
        "{{#measure table record=ch99-demo metric=p99 case-names=\"1:one job;2:two jobs\"}}",
    )
    .unwrap();
    assert!(
        out.contains("<th>one job</th>")
            && out.contains("<th>two jobs</th>")
            && out.contains("<th>0</th>"),
        "{out}"
    );
    let e = expand(
        &data(),
        "{{#measure table record=ch99-demo metric=p99 case-names=\"7:seven\"}}",
    )
    .unwrap_err();
    assert!(
        e.contains("shows no case `7`") && e.contains("0, 1, 2"),
        "{e}"
    );
    // Byte counts in the reader's units.
    let out = expand(
        &data(),
        "{{#measure table record=ch99-demo metric=p99 case-unit=B}}",
    )
    .unwrap();
    assert!(out.contains("<th>1 B</th>"), "{out}");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dst = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &dst);
        } else {
            std::fs::copy(entry.path(), dst).unwrap();
        }
    }
}

#[test]
fn a_predict_question_whose_experiment_the_record_lacks_fails_the_schedule() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let toml = dir.path().join("listings/ch99-demo/chapter.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        text.replacen("experiment = \"demo\"", "experiment = \"demo_renamed\"", 1),
    )
    .unwrap();
    let data = demo_sessions(dir.path());
    let e = expand(&data, "{{#measure schedule length=60 chapters=ch99-demo}}").unwrap_err();
    assert!(
        e.contains("runs experiment `demo_renamed`, which its record does not have; it has demo"),
        "{e}"
    );
}

/// The fixture's data with one page that gives ch99-demo's workshop minutes (what the schedule
/// directive reads).
fn demo_sessions(root: &std::path::Path) -> Data {
    let pages = vec![(
        "a.md".to_string(),
        None,
        "# A\n{{#measure minutes record=ch99-demo reading=5 demo=5 exercises=5}}".to_string(),
    )];
    Data::new(root, "test-machine")
        .with_sessions(&pages)
        .unwrap()
}

#[test]
fn the_edition_names_its_commit_and_the_repository_only_where_the_build_knows_it() {
    let html = expand(&data(), "{{#measure edition}}").unwrap();
    assert!(html.contains("By the book's contributors."), "{html}");
    assert!(html.contains("built from commit <code>"), "{html}");
    assert!(!html.contains("<a href"), "no address, no link: {html}");
    let deployed = data().with_repository(Some("https://example.org/book".into()));
    let html = expand(&deployed, "{{#measure edition}}").unwrap();
    assert!(
        html.contains(
            "The code, the records and the issues: <a href=\"https://example.org/book\">"
        ),
        "{html}"
    );
}
