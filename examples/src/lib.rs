//! Programs live in `examples/`; this crate only hosts them.
