//! `book pdf` prints a tiny book on the paper asked for, with a contents page whose page numbers
//! are where the chapters start, a number at the foot of every page and an outline. Skipped, with
//! the reason printed, where Chromium or poppler-utils (pdfinfo, pdftotext) is not installed.

use std::path::Path;
use std::process::Command;

fn installed(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_pdf_has_contents_with_page_numbers_numbered_pages_and_the_paper_asked_for() {
    if !installed("chromium") || !installed("pdfinfo") || !installed("pdftotext") {
        eprintln!(
            "skipped: needs chromium and poppler-utils (scripts/test.sh installs Debian's \
             `chromium` and `poppler-utils`)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "book.toml",
        "[book]\ntitle = \"t\"\nsrc = \"src\"\n[build]\ncreate-missing = false\n\
         [preprocessor.measure]\ncommand = \"false\"\nbefore = [\"links\"]\nreference-machine = \"m\"\n\
         [output.html]\nadditional-css = [\"page.css\"]\n",
    );
    write(root, "Cargo.toml", "[workspace]\n");
    write(
        root,
        "page.css",
        "@page { margin: 16mm; @bottom-center { content: counter(page); } }\n",
    );
    write(
        root,
        "src/SUMMARY.md",
        "# Summary\n\n- [First](one.md)\n    - [Inside](inside.md)\n- [Second](two.md)\n",
    );
    // The first chapter runs to a few pages, so that the second starts well after it.
    let long: String = (0..120)
        .map(|i| format!("Paragraph {i} of the first chapter.\n\n"))
        .collect();
    write(root, "src/one.md", &format!("# First\n\n{long}"));
    write(root, "src/inside.md", "# Inside\n\nA section.\n");
    write(root, "src/two.md", "# Second\n\nThe end.\n");

    let out = Command::new(env!("CARGO_BIN_EXE_book"))
        .args(["pdf", "--paper", "letter"])
        .current_dir(root)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!("{err}");
    assert!(out.status.success(), "{err}");
    assert!(err.contains("letter"), "{err}");
    assert!(err.contains("contents with page numbers"), "{err}");
    let pdf = root.join("book/book.pdf");
    let info = Command::new("pdfinfo").arg(&pdf).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("(letter)"), "{info}");
    // The contents' numbers are the pages where the chapters' headings are.
    let dests = Command::new("pdfinfo")
        .arg("-dests")
        .arg(&pdf)
        .output()
        .unwrap();
    let dests = String::from_utf8_lossy(&dests.stdout);
    let page_of = |id: &str| -> String {
        dests
            .lines()
            .find(|l| l.ends_with(&format!("\"{id}\"")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no destination {id}:\n{dests}"))
            .to_string()
    };
    let second = page_of("second");
    assert_ne!(second, "1");
    let text = Command::new("pdftotext")
        .arg("-layout")
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    // The contents follow the first chapter (in the book, its title page), before the second.
    let pages: Vec<&str> = text.split('\u{c}').collect();
    let at = pages
        .iter()
        .position(|p| p.trim_start().starts_with("Contents"))
        .unwrap_or_else(|| panic!("no contents page:\n{text}"));
    assert!(pages[at - 1].contains("of the first chapter"), "{text}");
    assert!(second.parse::<usize>().unwrap() > at + 1, "{dests}");
    let contents = pages[at];
    let line = contents
        .lines()
        .find(|l| l.contains("Second"))
        .unwrap_or_else(|| panic!("no contents:\n{contents}"));
    assert!(line.trim_end().ends_with(&format!(" {second}")), "{line}");
    assert!(contents.contains("1.1."), "{contents}");
}
