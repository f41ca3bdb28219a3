//! Nothing here: this crate exists so that its dependencies are built for the book's code blocks.
