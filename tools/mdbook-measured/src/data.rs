//! Finding records and the series a directive names, with errors that say what is available.

use crate::Directive;
use crate::render::Kind;
use measure::claims::{Claims, resolve_case};
use measure::record::{self, Record, Series};
use records::chapter::Manifest;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The arguments that choose a record: `record=` (a chapter, `record=ch01-blocking`) and
/// `machine=` (the chapter's machine unless named; `machine=reference` names it in a reader's
/// book too). `R` is `String` where the record is required, `Option<String>` in a ratio's
/// denominator, which takes the numerator's where it names none.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Which<R = String> {
    pub record: R,
    pub machine: Option<String>,
}

/// The arguments that select data: a record, and in it an experiment (needed where the record
/// has several), a case, a variant and a metric. A ratio's `over.KEY` replaces one of them for
/// its denominator.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Select<R = String> {
    #[serde(rename = "*")]
    pub which: Which<R>,
    pub experiment: Option<String>,
    pub case: Option<String>,
    pub variant: Option<String>,
    pub metric: Option<String>,
}

impl Select {
    /// This selection with `over`'s selectors in place of its own (a ratio's denominator).
    pub fn over(&self, over: &Select<Option<String>>) -> Select {
        let or = |o: &Option<String>, s: &Option<String>| o.clone().or_else(|| s.clone());
        Select {
            which: Which {
                record: over
                    .which
                    .record
                    .clone()
                    .unwrap_or_else(|| self.which.record.clone()),
                machine: or(&over.which.machine, &self.which.machine),
            },
            experiment: or(&over.experiment, &self.experiment),
            case: or(&over.case, &self.case),
            variant: or(&over.variant, &self.variant),
            metric: or(&over.metric, &self.metric),
        }
    }

    fn get(&self, dim: Dim) -> Option<&str> {
        match dim {
            Dim::Case => self.case.as_deref(),
            Dim::Variant => self.variant.as_deref(),
            Dim::Metric => self.metric.as_deref(),
        }
    }
}

/// A value kept once per record, keyed by (machine, chapter).
type PerRecord<T> = RefCell<HashMap<(String, String), T>>;

/// The records under `<root>/data/`, loaded once each.
pub struct Data {
    root: PathBuf,
    /// The repository's address, where the build was told it.
    repository: Option<String>,
    /// The machine the book's figures come from (`reference-machine` in book.toml).
    reference: String,
    /// Each chapter's machine, from its manifest.
    chapter_machines: BTreeMap<String, String>,
    /// Every chapter's manifest, in chapter order (`records::chapter`).
    chapters: Vec<Manifest>,
    /// The reader's machine, for a book rendered from their own records (`--machine NAME`).
    reader: Option<String>,
    /// Display names for metrics: the chapters' manifests' and the noise metrics'.
    metric_names: BTreeMap<String, String>,
    cache: RefCell<HashMap<PathBuf, Rc<Record>>>,
    /// Each record's staleness, once: judging it runs `cargo tree` or reads its release set.
    staleness: PerRecord<Option<String>>,
    /// Each snapshot's inputs changed since it was measured, once (see `changed_since_snapshot`).
    snapshot_changes: PerRecord<Option<Vec<String>>>,
    claims: RefCell<HashMap<String, Rc<Claims>>>,
    warnings: RefCell<BTreeSet<String>>,
    /// Records the current page took from the reference machine because the reader's machine
    /// has none (the page says so at its top).
    fallbacks: RefCell<BTreeSet<String>>,
    /// (record, claim id) of every claim directive rendered.
    used_claims: RefCell<BTreeSet<(String, String)>>,
    /// Numbered tables and figures, by their `id=`.
    labels: BTreeMap<String, Label>,
    /// Where each record's claims are shown on every machine (the Machines page).
    class_pages: BTreeMap<String, String>,
    /// The page (as HTML) that lists each record's checked claims (its `claims` directive).
    claim_lists: BTreeMap<String, String>,
    /// The provenance lines the current page has shown (a page says each once).
    provenance_shown: RefCell<BTreeSet<String>>,
    /// The chapters whose releases the current page has shown (`releases record=`).
    releases_shown: RefCell<BTreeSet<String>>,
    /// Each chapter's workshop minutes (its `minutes` directive), in page order.
    sessions: Vec<Session>,
}

/// A chapter's minutes in a workshop, as its page states them.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub record: String,
    pub title: String,
    /// The page, as an HTML path.
    pub page: String,
    pub reading: u32,
    pub demo: u32,
    pub exercises: u32,
}

impl Session {
    pub fn total(&self) -> u32 {
        self.reading + self.demo + self.exercises
    }
}

/// A numbered table or figure: what the prose calls it and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// "Table 1.2" or "Figure 2.1".
    pub name: String,
    /// The page it is on, as an HTML path ("ch01-blocking.html").
    pub page: String,
}

impl Label {
    /// The element id the table or figure carries.
    pub fn anchor(id: &str) -> String {
        format!("m-{id}")
    }
}

/// A directive's selection, resolved against one record.
#[derive(Clone)]
pub struct Resolved {
    pub record: Rc<Record>,
    pub machine: String,
    pub experiment: String,
    pub case: Option<String>,
    pub variant: Option<String>,
    pub metric: Option<String>,
}

choice! {
    /// A dimension of the data.
    pub enum Dim {
        Case = "case",
        Variant = "variant",
        Metric = "metric",
    }
}

impl Dim {
    pub fn of(self, s: &Series) -> &str {
        match self {
            Dim::Case => &s.case,
            Dim::Variant => &s.variant,
            Dim::Metric => &s.metric,
        }
    }
}

impl Data {
    pub fn new(root: &Path, reference: &str) -> Data {
        Data {
            root: root.to_path_buf(),
            repository: None,
            reference: reference.to_string(),
            chapter_machines: BTreeMap::new(),
            chapters: Vec::new(),
            reader: None,
            metric_names: BTreeMap::new(),
            cache: RefCell::new(HashMap::new()),
            staleness: RefCell::new(HashMap::new()),
            snapshot_changes: RefCell::new(HashMap::new()),
            claims: RefCell::new(HashMap::new()),
            warnings: RefCell::new(BTreeSet::new()),
            fallbacks: RefCell::new(BTreeSet::new()),
            used_claims: RefCell::new(BTreeSet::new()),
            labels: BTreeMap::new(),
            claim_lists: BTreeMap::new(),
            class_pages: BTreeMap::new(),
            provenance_shown: RefCell::new(BTreeSet::new()),
            releases_shown: RefCell::new(BTreeSet::new()),
            sessions: Vec::new(),
        }
    }

    /// Numbers every table and figure that has an `id=`, page by page: (page path, chapter
    /// number if any, Markdown). Tables and figures are counted apart, in page order.
    pub fn with_labels(
        mut self,
        pages: &[(String, Option<String>, String)],
    ) -> Result<Data, String> {
        // A chapter's subpage ("1.1") goes on counting its chapter's tables and figures, after
        // its chapter (mdBook hands over a chapter's subpages before the chapter itself); a page
        // without a number counts its own.
        let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut in_order: Vec<&(String, Option<String>, String)> = pages.iter().collect();
        in_order.sort_by_key(|(_, number, _)| {
            number.as_ref().map(|n| {
                n.split('.')
                    .map(|part| part.parse::<u32>().unwrap_or(0))
                    .collect::<Vec<_>>()
            })
        });
        for (page, number, content) in in_order {
            let number = &number
                .as_ref()
                .map(|n| n.split('.').next().unwrap_or(n).to_string());
            let key = number.clone().unwrap_or_else(|| page.clone());
            let (tables, figures) = counts.entry(key).or_default();
            for text in crate::directives_in(content) {
                let Ok(d) = Directive::parse(text) else {
                    continue; // reported when the page is expanded
                };
                let html = std::path::Path::new(page)
                    .with_extension("html")
                    .to_string_lossy()
                    .to_string();
                let Ok(kind) = Kind::parse(&d) else {
                    continue; // reported when the page is expanded
                };
                if let Kind::Claims(c) = &kind
                    && let Some(other) = self
                        .claim_lists
                        .insert(c.which.record.clone(), html.clone())
                {
                    return Err(format!(
                        "src/{page}: the claims of `{}` are listed twice (also on {other}): list them on one page",
                        c.which.record
                    ));
                }
                if let Kind::Class(c) = &kind
                    && c.by_claim()
                {
                    for record in self
                        .records_or_all(c.records.as_deref())
                        .unwrap_or_default()
                    {
                        self.class_pages
                            .entry(record.to_string())
                            .or_insert_with(|| html.clone());
                    }
                }
                let (name, id) = match &kind {
                    Kind::Table(t) => {
                        let Some(id) = &t.grid.id else { continue };
                        *tables += 1;
                        (format!("Table {}", numbered(number, *tables)), id)
                    }
                    Kind::Chart(c) => {
                        let Some(id) = &c.grid.id else { continue };
                        *figures += 1;
                        (format!("Figure {}", numbered(number, *figures)), id)
                    }
                    _ => continue,
                };
                let label = Label { name, page: html };
                if let Some(other) = self.labels.insert(id.to_string(), label) {
                    return Err(format!(
                        "src/{page}: id `{id}` is given twice (also {} on {})",
                        other.name, other.page
                    ));
                }
            }
        }
        Ok(self)
    }

    /// Reads every page's `minutes` directive, for the schedules (which may come before them).
    pub fn with_sessions(
        mut self,
        pages: &[(String, Option<String>, String)],
    ) -> Result<Data, String> {
        let title_of = |content: &str| {
            content
                .lines()
                .find_map(|l| l.strip_prefix("# "))
                .map(str::to_string)
        };
        for (page, number, content) in pages {
            // A subpage ("1.1") states its chapter's minutes under the chapter's title.
            let chapter = number
                .as_ref()
                .and_then(|n| n.split_once('.'))
                .and_then(|(c, _)| {
                    pages
                        .iter()
                        .find(|(_, n, _)| n.as_deref() == Some(c))
                        .and_then(|(_, _, text)| title_of(text))
                });
            for text in crate::directives_in(content) {
                let Ok(d) = Directive::parse(text) else {
                    continue;
                };
                let Ok(Kind::Minutes(minutes)) = Kind::parse(&d) else {
                    continue; // a bad one is reported when its page is expanded
                };
                let record = minutes.record.as_str();
                if self.sessions.iter().any(|s| s.record == record) {
                    return Err(format!(
                        "src/{page}: a second minutes directive for {record}"
                    ));
                }
                let title = chapter
                    .clone()
                    .or_else(|| title_of(content))
                    .unwrap_or_else(|| record.to_string());
                self.sessions.push(Session {
                    record: record.to_string(),
                    title,
                    page: std::path::Path::new(page)
                        .with_extension("html")
                        .to_string_lossy()
                        .into_owned(),
                    reading: minutes.reading.0,
                    demo: minutes.demo.0,
                    exercises: minutes.exercises.0,
                });
            }
        }
        Ok(self)
    }

    /// The minutes a chapter's page states.
    pub fn session(&self, record: &str) -> Result<&Session, String> {
        self.sessions.iter().find(|s| s.record == record).ok_or_else(|| {
            let known: Vec<String> = self.sessions.iter().map(|s| s.record.clone()).collect();
            format!(
                "no page states the minutes of `{record}` (a {{{{#measure minutes record={record} ...}}}} on its page); stated: {}",
                list(&known)
            )
        })
    }

    pub fn numbered(&self, id: &str) -> Result<&Label, String> {
        self.labels.get(id).ok_or_else(|| {
            let known: Vec<String> = self.labels.keys().cloned().collect();
            format!("no table or figure with id `{id}`; ids: {}", list(&known))
        })
    }

    /// Every chapter's manifest: each one's machine and metric names, and the chapters that the
    /// directives listing "every chapter" list.
    pub fn with_chapters(mut self, chapters: Vec<Manifest>) -> Result<Data, String> {
        let mut names = records::chapter::metric_names(&chapters)?;
        for (metric, name) in records::noise::DISPLAY_NAMES {
            names.insert(metric.to_string(), name.to_string());
        }
        self.metric_names = names;
        self.chapter_machines = chapters
            .iter()
            .map(|m| (m.name.clone(), m.machine.clone()))
            .collect();
        self.chapters = chapters;
        Ok(self)
    }

    /// Every chapter's manifest, in chapter order.
    pub fn chapters(&self) -> &[Manifest] {
        &self.chapters
    }

    /// The book's machines: each chapter's manifest's machine, once each, in chapter order (the
    /// book's reference machine where there are no manifests).
    pub fn book_machines(&self) -> Vec<String> {
        if self.chapters.is_empty() {
            return vec![self.reference.clone()];
        }
        records::chapter::book_machines(&self.chapters)
    }

    /// `record` on `machine` at the Tokio its reference record was built with: its own record
    /// (`data/<machine>/`), else its record of that release in the release matrix
    /// (`data/<machine>-tokio-<version>/`), with the folder it came from. A release record
    /// stands in only where it measured the listing the reference record measured: one of an
    /// earlier version lacks its cells, and its claims may have been restated since.
    pub fn record_at_pin(&self, machine: &str, record: &str) -> Option<(Rc<Record>, String)> {
        if let Ok(rec) = self.record(machine, record) {
            return Some((rec, machine.to_string()));
        }
        let reference = self.record(self.reference_for(record), record).ok()?;
        let tokio = reference.build.crates.get("tokio")?;
        let folder = records::releases::folder(machine, tokio);
        let rec = self.record(&folder, record).ok()?;
        same_listing(&rec, &reference, record).then_some((rec, folder))
    }

    /// A list of records as a directive gives it (`records=a,b`), else every chapter's; an
    /// error when there is neither.
    pub fn records_or_all(&self, given: Option<&[String]>) -> Result<Vec<String>, String> {
        match given {
            Some(list) => Ok(list.to_vec()),
            None if self.chapters.is_empty() => Err(
                "no chapter has a manifest (listings/*/chapter.toml): name the records, records=ch01-blocking,ch02-mutexes".into(),
            ),
            None => Ok(self.chapters.iter().map(|m| m.name.clone()).collect()),
        }
    }

    /// Renders from the reader's machine where it has a record (`--machine NAME`).
    /// The repository's address, as the deploy configuration sets it (`output.html.git-repository-url`).
    pub fn with_repository(mut self, url: Option<String>) -> Data {
        self.repository = url;
        self
    }

    pub fn repository(&self) -> Option<&str> {
        self.repository.as_deref()
    }

    pub fn with_reader(mut self, reader: Option<String>) -> Data {
        self.reader = reader;
        self
    }

    pub fn reader(&self) -> Option<&str> {
        self.reader.as_deref()
    }

    /// The machine the book takes `record`'s figures from.
    pub fn reference_for(&self, record: &str) -> &str {
        self.chapter_machines
            .get(record)
            .map_or(self.reference.as_str(), String::as_str)
    }

    /// What `machine`'s record of `record` is to the book, which decides the rules its claims
    /// are judged by (`records::judge`): in a reader's book, every machine is another machine.
    pub fn role(&self, machine: &str, record: &str) -> records::judge::Role {
        use records::judge::Role;
        let reference = self.reference_for(record);
        match machine {
            _ if self.reader.is_some() => Role::Other,
            m if m == reference => Role::Reference,
            m if m == records::chapter::busy_machine_of(reference) => Role::Busy,
            _ => Role::Other,
        }
    }

    /// Whether `machine` is the book's own source for `record` (a claim must hold there).
    pub fn is_reference(&self, machine: &str, record: &str) -> bool {
        self.reader.is_none() && machine == self.reference_for(record)
    }

    /// The machine a directive reads: the one it names, else the reader's when they have this
    /// record, else the chapter's reference machine (noted as a fallback in a reader's book).
    /// `machine=reference` names the chapter's reference machine, in the reader's book too (a
    /// section about the book's own machine, such as its busy rerun, compares it with itself).
    pub fn machine_for(&self, record: &str, named: Option<&str>) -> String {
        match named {
            Some(REFERENCE) => return self.reference_for(record).to_string(),
            Some(m) => return m.to_string(),
            None => {}
        }
        let machine = self.page_machine(record);
        if self
            .reader
            .as_ref()
            .is_some_and(|reader| *reader != machine)
        {
            self.fallbacks.borrow_mut().insert(record.to_string());
        }
        machine
    }

    /// The machine a directive that names none reads for `record` (the page's machine): the
    /// reader's where it has the record, else the chapter's reference machine.
    pub fn page_machine(&self, record: &str) -> String {
        match &self.reader {
            Some(reader) if self.has_record(reader, record) => reader.clone(),
            _ => self.reference_for(record).to_string(),
        }
    }

    pub(crate) fn has_record(&self, machine: &str, record: &str) -> bool {
        record::record_path(&self.root, machine, record).is_file()
    }

    /// Whether `d` reads the reader's own record (no machine named, and the reader has it).
    pub fn reads_reader(&self, d: &Directive) -> bool {
        match (&self.reader, d.get("record")) {
            (Some(reader), Some(record)) if d.get("machine").is_none() => {
                self.has_record(reader, record)
            }
            _ => false,
        }
    }

    /// Whether the current page has yet to show the provenance line `key`; from now on it has.
    pub fn first_on_page(&self, key: String) -> bool {
        self.provenance_shown.borrow_mut().insert(key)
    }

    /// A new page begins: its tables say their provenance again, once.
    pub fn new_page(&self) {
        self.provenance_shown.borrow_mut().clear();
        self.releases_shown.borrow_mut().clear();
    }

    /// Notes that the current page shows `record`'s releases; false if it did already.
    pub fn show_releases(&self, record: &str) -> bool {
        self.releases_shown.borrow_mut().insert(record.to_string())
    }

    /// Records the page just rendered took from the reference machine; clears the list.
    pub fn take_fallbacks(&self) -> Vec<String> {
        std::mem::take(&mut *self.fallbacks.borrow_mut())
            .into_iter()
            .collect()
    }

    /// The claims of `record`'s listing (`listings/<record>/claims.toml`), loaded once.
    pub fn claims(&self, record: &str) -> Result<Rc<Claims>, String> {
        if let Some(c) = self.claims.borrow().get(record) {
            return Ok(c.clone());
        }
        let dir = self.root.join("listings").join(record);
        if !dir.is_dir() {
            return Err(format!("no listing listings/{record} for its claims"));
        }
        let claims = Rc::new(Claims::load(&dir)?);
        self.claims
            .borrow_mut()
            .insert(record.to_string(), claims.clone());
        Ok(claims)
    }

    pub fn note_claim_used(&self, record: &str, id: &str) {
        self.used_claims
            .borrow_mut()
            .insert((record.to_string(), id.to_string()));
    }

    /// The page that shows `record`'s claims on every machine, one row a claim, if one does.
    pub fn class_page(&self, record: &str) -> Option<&str> {
        self.class_pages.get(record).map(String::as_str)
    }

    /// The page that lists `record`'s checked claims, as HTML, if one does.
    pub fn claim_list_page(&self, record: &str) -> Option<&str> {
        self.claim_lists.get(record).map(String::as_str)
    }

    /// Records whose claims a page states but no page lists (the lab notebook's Checked claims page lists every chapter's).
    pub fn unlisted_claims(&self) -> Vec<String> {
        let used: BTreeSet<String> = self
            .used_claims
            .borrow()
            .iter()
            .map(|(record, _)| record.clone())
            .collect();
        used.into_iter()
            .filter(|r| !self.claim_lists.contains_key(r))
            .collect()
    }

    /// The listings (folders under listings/), sorted.
    pub fn listings(&self) -> Vec<String> {
        self.available(&self.root.join("listings"), false)
    }

    /// Claims defined in a listing's claims.toml that no page states: "listing/id".
    pub fn unused_claims(&self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for listing in self.listings() {
            let claims = self.claims(&listing)?;
            for id in claims.ids() {
                let key = (listing.clone(), id.to_string());
                if !self.used_claims.borrow().contains(&key) {
                    out.push(format!("{listing}/{id}"));
                }
            }
        }
        Ok(out)
    }

    pub fn with_metric_names(mut self, names: BTreeMap<String, String>) -> Data {
        self.metric_names = names;
        self
    }

    /// How a value of `dim` is shown in a header or legend: variants as code, metrics by their
    /// display name where a chapter's manifest gives one.
    pub fn label(&self, dim: Dim, v: &str) -> String {
        match dim {
            Dim::Variant => format!("<code>{}</code>", crate::esc(v)),
            Dim::Metric => crate::esc(self.metric_name(v)),
            Dim::Case => crate::esc(v),
        }
    }

    /// A metric's display name, as plain text.
    pub fn metric_name<'a>(&'a self, metric: &'a str) -> &'a str {
        self.metric_names.get(metric).map_or(metric, String::as_str)
    }

    pub fn reference(&self) -> &str {
        &self.reference
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Warnings gathered so far (stale data), once each.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.borrow().iter().cloned().collect()
    }

    /// The machines with records under `data/`: every folder but the published figures' and
    /// the Tokio releases' (`<machine>-tokio-<version>`, their own page).
    pub fn measured_machines(&self) -> Vec<String> {
        self.available(&self.root.join("data"), false)
            .into_iter()
            .filter(|m| !m.starts_with("published") && records::releases::split_folder(m).is_none())
            .collect()
    }

    /// The machines with records of Tokio releases under `data/`.
    pub fn release_machines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .available(&self.root.join("data"), false)
            .iter()
            .filter_map(|m| {
                records::releases::split_folder(m).map(|(machine, _)| machine.to_string())
            })
            .collect();
        out.dedup();
        out
    }

    /// Loads `data/<machine>/<name>.json`.
    pub fn record(&self, machine: &str, name: &str) -> Result<Rc<Record>, String> {
        let path = record::record_path(&self.root, machine, name);
        if let Some(r) = self.cache.borrow().get(&path) {
            return Ok(r.clone());
        }
        let rec = match Record::load(&path) {
            Ok(r) => Rc::new(r),
            Err(record::RecordError::Missing(_)) => {
                return Err(format!(
                    "no record data/{machine}/{name}.json (records for {machine}: {}; machines: {})",
                    list(&self.available(&self.root.join("data").join(machine), true)),
                    list(&self.available(&self.root.join("data"), false)),
                ));
            }
            Err(e) => return Err(e.to_string()),
        };
        if rec.chapter != name {
            return Err(format!(
                "data/{machine}/{name}.json says it is the record of `{}`",
                rec.chapter
            ));
        }
        if rec.machine.name != machine {
            return Err(format!(
                "data/{machine}/{name}.json says it was measured on `{}`: a record belongs in its machine's folder",
                rec.machine.name
            ));
        }
        self.cache.borrow_mut().insert(path, rec.clone());
        Ok(rec)
    }

    fn available(&self, dir: &Path, files: bool) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let p = e.path();
                if files {
                    (p.extension()? == "json")
                        .then(|| p.file_stem()?.to_str().map(str::to_string))?
                } else {
                    p.is_dir()
                        .then(|| p.file_name()?.to_str().map(str::to_string))?
                }
            })
            .collect();
        out.sort();
        out
    }

    /// Resolves only the record (for kinds that describe a whole record).
    pub fn resolve_record_only(&self, which: &Which) -> Result<Resolved, String> {
        let name = &which.record;
        let machine = self.machine_for(name, which.machine.as_deref());
        let record = self.record(&machine, name)?;
        Ok(Resolved {
            record,
            machine,
            experiment: String::new(),
            case: None,
            variant: None,
            metric: None,
        })
    }

    /// Resolves a selection (for a ratio's denominator, [`Select::over`] first).
    pub fn resolve(&self, select: &Select) -> Result<Resolved, String> {
        let name = &select.which.record;
        let machine = self.machine_for(name, select.which.machine.as_deref());
        let record = self.record(&machine, name)?;
        let experiments = distinct(record.series.iter().map(|s| s.experiment.as_str()));
        let experiment = match select.experiment.as_deref() {
            Some(e) if experiments.iter().any(|x| x == e) => e.to_string(),
            Some(e) => {
                return Err(format!(
                    "no experiment `{e}` in {}; available: {}",
                    describe(&record, &machine),
                    list(&experiments)
                ));
            }
            None if experiments.len() == 1 => experiments[0].clone(),
            None => {
                return Err(format!(
                    "which experiment? add experiment=NAME; available: {}",
                    list(&experiments)
                ));
            }
        };
        let mut r = Resolved {
            record,
            machine,
            experiment,
            case: None,
            variant: None,
            metric: None,
        };
        for dim in [Dim::Case, Dim::Variant, Dim::Metric] {
            let available = r.values(dim);
            let given = match select.get(dim) {
                Some(v) if dim == Dim::Case => Some(resolve_case(v, &r.record)?),
                other => other.map(str::to_string),
            };
            let chosen = match given.as_deref() {
                Some(v) if available.iter().any(|x| x == v) => Some(v.to_string()),
                Some(v) => {
                    return Err(format!(
                        "no {} `{v}` in {} experiment `{}`; available: {}",
                        dim.name(),
                        describe(&r.record, &r.machine),
                        r.experiment,
                        list(&available)
                    ));
                }
                None if available.len() == 1 => Some(available[0].clone()),
                None => None,
            };
            match dim {
                Dim::Case => r.case = chosen,
                Dim::Variant => r.variant = chosen,
                Dim::Metric => r.metric = chosen,
            }
        }
        self.check_fresh(&r);
        Ok(r)
    }

    /// Warns (once) when a record's listing has changed since the record was made.
    fn check_fresh(&self, r: &Resolved) {
        if let Some(stale) = self.staleness(&r.record) {
            self.warnings.borrow_mut().insert(format!(
                "data/{}/{}.json: {stale}",
                r.machine, r.record.chapter
            ));
        }
    }

    /// For a snapshot (a record of a machine that is not the book's, see
    /// `freshness::is_snapshot`) whose listing has changed since it was measured: what changed.
    /// `None` for every other record, and for a snapshot as fresh as the working tree.
    pub fn changed_since_snapshot(&self, rec: &Record) -> Option<Vec<String>> {
        if rec.source.is_some()
            || !measure::freshness::is_snapshot(&self.root, &rec.machine.name).unwrap_or(false)
        {
            return None;
        }
        let key = (rec.machine.name.clone(), rec.chapter.clone());
        if let Some(known) = self.snapshot_changes.borrow().get(&key) {
            return known.clone();
        }
        let changed = measure::freshness::stale_inputs(&self.root, rec)
            .ok()
            .filter(|c| !c.is_empty());
        self.snapshot_changes
            .borrow_mut()
            .insert(key, changed.clone());
        changed
    }

    /// Why a record is stale, if it is: what shaped it changed since it was made.
    pub fn staleness(&self, rec: &Record) -> Option<String> {
        if rec.source.is_some()
            || !self
                .root
                .join("listings")
                .join(&rec.chapter)
                .join("Cargo.toml")
                .is_file()
        {
            return None;
        }
        let key = (rec.machine.name.clone(), rec.chapter.clone());
        if let Some(known) = self.staleness.borrow().get(&key) {
            return known.clone();
        }
        let stale = measure::freshness::staleness(&self.root, rec).unwrap_or_else(Some);
        self.staleness.borrow_mut().insert(key, stale.clone());
        stale
    }
}

impl Resolved {
    /// The distinct values of `dim` in this experiment (cases in numeric order when numeric).
    pub fn values(&self, dim: Dim) -> Vec<String> {
        let mut v = distinct(self.series_iter().map(|s| dim.of(s)));
        if dim == Dim::Case {
            v.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => std::cmp::Ordering::Equal,
            });
        }
        v
    }

    fn series_iter(&self) -> impl Iterator<Item = &Series> {
        self.record
            .series
            .iter()
            .filter(move |s| s.experiment == self.experiment)
    }

    /// The one series at (case, variant, metric), each either chosen or given here.
    pub fn series(
        &self,
        case: Option<&str>,
        variant: Option<&str>,
        metric: Option<&str>,
    ) -> Result<&Series, String> {
        let case = case.or(self.case.as_deref());
        let variant = variant.or(self.variant.as_deref());
        let metric = metric.or(self.metric.as_deref());
        for (dim, v) in [
            (Dim::Case, case),
            (Dim::Variant, variant),
            (Dim::Metric, metric),
        ] {
            if v.is_none() {
                return Err(format!(
                    "which {0}? add {0}=NAME; available: {1}",
                    dim.name(),
                    list(&self.values(dim))
                ));
            }
        }
        self.series_iter()
            .find(|s| {
                Some(s.case.as_str()) == case
                    && Some(s.variant.as_str()) == variant
                    && Some(s.metric.as_str()) == metric
            })
            .ok_or_else(|| {
                format!(
                    "{} has no series for case `{}`, variant `{}`, metric `{}`",
                    describe(&self.record, &self.machine),
                    case.unwrap_or_default(),
                    variant.unwrap_or_default(),
                    metric.unwrap_or_default()
                )
            })
    }
}

fn distinct<'a>(it: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in it {
        if !out.iter().any(|x| x == v) {
            out.push(v.to_string());
        }
    }
    out
}

fn describe(rec: &Record, machine: &str) -> String {
    format!("data/{machine}/{}.json", rec.chapter)
}

pub fn list(v: &[String]) -> String {
    if v.is_empty() {
        "(none)".into()
    } else {
        v.join(", ")
    }
}

/// The value of `machine=` that names the chapter's reference machine.
pub const REFERENCE: &str = "reference";

/// "1.2" in chapter 1, "2" on a page without a number.
fn numbered(chapter: &Option<String>, n: usize) -> String {
    match chapter {
        Some(c) => format!("{c}.{n}"),
        None => n.to_string(),
    }
}

/// Whether two records of `chapter` measured the same version of its listing, by the hash of its
/// folder that each keeps (records older than those hashes count as the same).
fn same_listing(a: &Record, b: &Record, chapter: &str) -> bool {
    let key = format!("listings/{chapter}");
    match (a.build.inputs.get(&key), b.build.inputs.get(&key)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_record_of_another_version_of_the_listing_does_not_stand_in() {
        let with_hash = |hash: Option<&str>| {
            let mut rec = Record::sketch("ch09-x", "m", &[], &[]);
            if let Some(h) = hash {
                rec.build.inputs.insert("listings/ch09-x".into(), h.into());
            }
            rec
        };
        let (old, new) = (with_hash(Some("aaaa")), with_hash(Some("bbbb")));
        assert!(same_listing(&new, &with_hash(Some("bbbb")), "ch09-x"));
        assert!(!same_listing(&old, &new, "ch09-x"));
        // A record from before the hashes were kept cannot tell: it stands in, as it did.
        assert!(same_listing(&with_hash(None), &new, "ch09-x"));
    }
}
