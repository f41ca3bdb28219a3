//! What a record says about the machine's noise: every cell of our own runs carries two more
//! metrics, measured by `measure::noise` around the cell, in percent of one core.

/// Above this share of one core (steal and other processes together), a cell ran on a noisy
/// machine and the reports say so.
pub const NOISY_PERCENT_OF_A_CORE: f64 = 10.0;

/// The metric names the runner adds to every cell.
pub const STEAL: &str = "noise_steal";
pub const OTHERS: &str = "noise_others";
/// Added by a listing that starts servers of its own (Chapter 8's PostgreSQL): their CPU over
/// the cell, in percent of one core. They are part of the system under test, but their
/// processes are not the listing's children (the database's backends are its server's), so
/// `noise_others` counts them; [`crate::report::cell_noise`] takes them out again.
pub const OWN_SERVERS: &str = "noise_own_servers";

/// How tables, legends and axes name the noise metrics (a chapter names its own metrics in its
/// manifest, `crate::chapter`).
pub const DISPLAY_NAMES: [(&str, &str); 3] = [
    (STEAL, "steal (of a core)"),
    (OTHERS, "other processes (of a core)"),
    (OWN_SERVERS, "own servers (of a core)"),
];

/// Whether a metric is one of the noise metrics (hidden from results tables unless asked for).
pub fn is_noise_metric(metric: &str) -> bool {
    metric == STEAL || metric == OTHERS || metric == OWN_SERVERS
}

/// What the machine took away while a cell ran, in percent of one core.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    pub steal: f64,
    pub others: f64,
}

impl Noise {
    pub fn total(&self) -> f64 {
        self.steal + self.others
    }

    pub fn is_noisy(&self) -> bool {
        self.total() > NOISY_PERCENT_OF_A_CORE
    }
}
