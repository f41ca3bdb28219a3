//! The book's two parts: the reader's book, and the lab notebook after it (the records, the claims
//! lists, the history of the claims, the runbook). SUMMARY.md says which is which: the notebook is
//! its opening page, `notebook.md`, and every page after it. The readability checks read the
//! reader's book; `book pdf` prints each part as a PDF of its own.

use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;

/// The page that opens the lab notebook.
pub const NOTEBOOK: &str = "notebook.md";

/// The book's pages (paths under `src/`, as SUMMARY.md orders them), split into the reader's book
/// and the lab notebook.
pub struct Parts {
    pub reader: Vec<String>,
    pub notebook: Vec<String>,
}

impl Parts {
    pub fn of(md: &MDBook) -> Parts {
        let mut parts = Parts {
            reader: Vec::new(),
            notebook: Vec::new(),
        };
        for item in md.iter() {
            if let BookItem::Chapter(ch) = item
                && let Some(path) = &ch.path
            {
                let path = path.to_string_lossy().to_string();
                if path == NOTEBOOK || !parts.notebook.is_empty() {
                    parts.notebook.push(path);
                } else {
                    parts.reader.push(path);
                }
            }
        }
        parts
    }
}
