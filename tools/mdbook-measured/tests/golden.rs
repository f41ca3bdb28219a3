//! Golden tests: fixed records in, exact Markdown/HTML out. `UPDATE_GOLDEN=1 cargo test` rewrites
//! the expected files after a deliberate change; review the diff before committing it.

use mdbook_measured::{Data, expand};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn data() -> Data {
    Data::new(&fixtures(), "test-machine")
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

    let e = error_of("{{#measure value record=ch99-demo case=1 metric=p99}}");
    assert!(
        e.contains("which variant?") && e.contains("inline, fix"),
        "{e}"
    );

    let e = error_of("{{#measure histogram record=ch99-demo}}");
    assert!(e.contains("unknown kind `histogram`"), "{e}");

    let e = error_of("{{#measure table record=ch99-demo metric=p99 colour=red}}");
    assert!(e.contains("unknown argument `colour`"), "{e}");

    let e = error_of("{{#measure chart record=ch99-demo metric=p99}}");
    assert!(e.contains("caption"), "{e}");

    let e = error_of("{{#measure ratio record=ch99-demo case=1 variant=inline metric=p99}}");
    assert!(e.contains("over."), "{e}");
}

#[test]
fn a_claim_the_book_machine_contradicts_fails_with_its_figure() {
    let e = error_of("{{#measure claim record=ch99-demo id=demo-impossible}}");
    assert!(
        e.contains("claim `demo-impossible` does not hold on test-machine")
            && e.contains("389× (claim: ≥ 1,000×)"),
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
            ">5.00×</span> <span class=\"claim-verdict\">✗ not held on reader-machine</span>"
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
