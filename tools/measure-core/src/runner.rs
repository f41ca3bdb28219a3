//! Interleaved repetitions: within each repetition every cell (case × variant) runs once, in an
//! order shuffled from a printed seed, so drift on a shared machine hits every variant alike.

use crate::record::Series;
use crate::stats::Summary;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// One configuration of an experiment: a case (e.g. a burst size) and a variant (e.g. a fix).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    pub case: String,
    pub variant: String,
}

impl Cell {
    pub fn new(case: impl ToString, variant: impl ToString) -> Self {
        Cell {
            case: case.to_string(),
            variant: variant.to_string(),
        }
    }

    /// Every case with every variant, case by case: an experiment's usual grid.
    pub fn grid<C: ToString, V: ToString>(
        cases: impl IntoIterator<Item = C>,
        variants: impl IntoIterator<Item = V>,
    ) -> Vec<Cell> {
        let variants: Vec<String> = variants.into_iter().map(|v| v.to_string()).collect();
        cases
            .into_iter()
            .flat_map(|c| {
                let case = c.to_string();
                variants.iter().map(move |v| Cell::new(&case, v))
            })
            .collect()
    }
}

/// What one run of one cell produced: (metric, unit, value) triples.
#[derive(Default, Debug, Clone)]
pub struct Measurement {
    pub metrics: Vec<(String, String, f64)>,
}

impl Measurement {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, metric: &str, unit: &str, value: f64) -> &mut Self {
        self.metrics.push((metric.into(), unit.into(), value));
        self
    }
}

/// Runs the cells of one experiment for a number of repetitions, interleaved.
pub struct Runner {
    pub experiment: String,
    pub cells: Vec<Cell>,
    pub reps: u32,
    pub seed: u64,
}

impl Runner {
    pub fn new(experiment: &str, cells: Vec<Cell>, reps: u32, seed: u64) -> Self {
        Runner {
            experiment: experiment.into(),
            cells,
            reps,
            seed,
        }
    }

    /// The order of cell indices in repetition `rep` (0-based): a seeded shuffle.
    pub fn order(&self, rep: u32) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.cells.len()).collect();
        fastrand::Rng::with_seed(crate::mix(self.seed ^ u64::from(rep))).shuffle(&mut order);
        order
    }

    /// Runs `f(cell, rep)` for every cell and repetition; the first error stops the run. Every
    /// cell also gets the machine's noise while it ran (see [`crate::noise`]).
    pub fn run<E>(
        &self,
        mut f: impl FnMut(&Cell, u32) -> Result<Measurement, E>,
    ) -> Result<Vec<Series>, E> {
        if self.cells.is_empty() {
            return Ok(Vec::new());
        }
        let total = self.cells.len() * self.reps as usize;
        let started = Instant::now();
        let mut progress = Progress::new(&self.experiment, total);
        // (cell index, metric, unit, values), metrics in the order the listing reports them.
        let mut values: Vec<(usize, String, String, Vec<f64>)> = Vec::new();
        let mut done = 0;
        for rep in 0..self.reps {
            for i in self.order(rep) {
                let cell = &self.cells[i];
                progress.show(done, rep + 1, self.reps, cell, started.elapsed());
                crate::noise::begin();
                let mut m = f(cell, rep)?;
                if let Some(noise) = crate::noise::end() {
                    m.push(crate::noise::STEAL, "%", noise.steal).push(
                        crate::noise::OTHERS,
                        "%",
                        noise.others,
                    );
                }
                for (metric, unit, value) in m.metrics {
                    match values.iter_mut().find(|v| v.0 == i && v.1 == metric) {
                        Some(v) => v.3.push(value),
                        None => values.push((i, metric, unit, vec![value])),
                    }
                }
                done += 1;
            }
        }
        progress.finish(total, started.elapsed());
        values.sort_by_key(|v| v.0);
        Ok(values
            .into_iter()
            .filter_map(|(i, metric, unit, vals)| {
                let cell = &self.cells[i];
                let s = Summary::of(&vals)?;
                Some(Series {
                    experiment: self.experiment.clone(),
                    case: cell.case.clone(),
                    variant: cell.variant.clone(),
                    metric,
                    unit,
                    median: s.median,
                    min: s.min,
                    max: s.max,
                    values: vals,
                })
            })
            .collect())
    }
}

/// The progress line on stderr: what runs, repetition k of N, time left.
struct Progress {
    experiment: String,
    total: usize,
    terminal: bool,
}

impl Progress {
    fn new(experiment: &str, total: usize) -> Self {
        Progress {
            experiment: experiment.into(),
            total,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, done: usize, rep: u32, reps: u32, cell: &Cell, elapsed: Duration) {
        let left = if done == 0 {
            "estimating".to_string()
        } else {
            let per = elapsed.as_secs_f64() / done as f64;
            format!("~{:.0}s left", per * (self.total - done) as f64)
        };
        let line = format!(
            "[{}] rep {rep}/{reps}  {:>3}/{}  case {} / {}  ({left})",
            self.experiment,
            done + 1,
            self.total,
            cell.case,
            cell.variant
        );
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K{line}");
            let _ = err.flush();
        } else {
            let _ = writeln!(err, "{line}");
        }
    }

    fn finish(&mut self, total: usize, elapsed: Duration) {
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K");
        }
        let _ = writeln!(
            err,
            "[{}] {total} runs in {:.1}s",
            self.experiment,
            elapsed.as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_is_every_case_with_every_variant() {
        let cells = Cell::grid([1, 2], ["inline", "fix"]);
        let names: Vec<(&str, &str)> = cells
            .iter()
            .map(|c| (c.case.as_str(), c.variant.as_str()))
            .collect();
        assert_eq!(
            names,
            [("1", "inline"), ("1", "fix"), ("2", "inline"), ("2", "fix")]
        );
        assert!(Cell::grid(Vec::<u32>::new(), ["x"]).is_empty());
    }

    fn cells() -> Vec<Cell> {
        ["a", "b", "c", "d", "e"]
            .iter()
            .map(|v| Cell::new("0", v))
            .collect()
    }

    #[test]
    fn order_is_a_seeded_permutation_that_changes_between_repetitions() {
        let r = Runner::new("x", cells(), 3, 42);
        let o0 = r.order(0);
        let mut sorted = o0.clone();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
        assert_eq!(o0, Runner::new("x", cells(), 3, 42).order(0));
        assert!((0..20).any(|rep| r.order(rep) != o0));
    }

    #[test]
    fn collects_every_repetition_into_series() {
        let r = Runner::new("x", cells(), 3, 7);
        let series = r
            .run::<()>(|cell, rep| {
                let mut m = Measurement::new();
                m.push(
                    "t",
                    "ms",
                    f64::from(rep) + (cell.variant.as_bytes()[0] - b'a') as f64,
                );
                Ok(m)
            })
            .unwrap();
        let measured: Vec<_> = series
            .iter()
            .filter(|s| !crate::noise::is_noise_metric(&s.metric))
            .collect();
        assert_eq!(measured.len(), 5);
        let b = measured.iter().find(|s| s.variant == "b").unwrap();
        assert_eq!(b.values, vec![1.0, 2.0, 3.0]);
        assert_eq!((b.median, b.min, b.max), (2.0, 1.0, 3.0));
    }

    #[test]
    fn an_error_stops_the_run() {
        let r = Runner::new("x", cells(), 2, 1);
        let mut calls = 0;
        let out = r.run(|_, _| {
            calls += 1;
            if calls == 3 {
                Err("bad checksum")
            } else {
                Ok(Measurement::new())
            }
        });
        assert_eq!(out.unwrap_err(), "bad checksum");
        assert_eq!(calls, 3);
    }
}
