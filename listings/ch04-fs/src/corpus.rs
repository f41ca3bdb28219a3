//! The files the experiments read: made by the listing in a directory of its own, checked, and
//! removed when the corpus is dropped, on success and on every error path.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A directory this process created; removed with everything in it when dropped.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Creates `ch04-fs-<pid>-<n>` under `parent`, which must exist.
    pub fn new(parent: &Path) -> Result<ScratchDir, String> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = parent.join(format!("ch04-fs-{}-{n}", std::process::id()));
        std::fs::create_dir(&path).map_err(|e| {
            format!(
                "cannot create a directory for the test files under {}: {e}",
                parent.display()
            )
        })?;
        Ok(ScratchDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the scratch directories that earlier runs left under `parent` when they were
    /// killed before they could clean up (`ch04-fs-<pid>-<n>` whose process is gone).
    pub fn sweep(parent: &Path) {
        let Ok(entries) = std::fs::read_dir(parent) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix("ch04-fs-")
                .and_then(|rest| rest.split_once('-'))
                .and_then(|(pid, _)| pid.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
                && Path::new("/proc/self").exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The digest of one file's bytes: a multiply-xor over 8-byte words, so a wrong byte anywhere
/// changes it.
pub fn digest(bytes: &[u8]) -> u64 {
    let mut h = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        h = measure::mix(h ^ u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    for b in words.remainder() {
        h = measure::mix(h ^ u64::from(*b));
    }
    h
}

/// The bytes of file `i`: deterministic, different in every file.
pub fn contents(i: usize, size: usize) -> Vec<u8> {
    let mut x = measure::mix(i as u64 + 1);
    (0..size)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

/// `count` files of `size` bytes in a fresh scratch directory, with the sum of their digests.
#[derive(Debug)]
pub struct Corpus {
    pub files: Vec<PathBuf>,
    pub size: usize,
    /// The sum of the files' digests: what every read variant must compute.
    pub expected: u64,
    dir: ScratchDir,
}

impl Corpus {
    /// Writes the files, then reads each once (warming the page cache) and checks it.
    pub fn create(parent: &Path, count: usize, size: usize) -> Result<Corpus, String> {
        let dir = ScratchDir::new(parent)?;
        let mut files = Vec::with_capacity(count);
        let mut expected = 0u64;
        for i in 0..count {
            let path = dir.path().join(format!("{i:05}.bin"));
            let bytes = contents(i, size);
            write_file(&path, &bytes).map_err(|e| {
                format!(
                    "cannot write the test files in {}: {e}; the directory has been removed",
                    dir.path().display()
                )
            })?;
            expected = expected.wrapping_add(digest(&bytes));
            files.push(path);
        }
        let corpus = Corpus {
            files,
            size,
            expected,
            dir,
        };
        let warm = corpus
            .files
            .iter()
            .try_fold(0u64, |sum, f| {
                Ok::<_, std::io::Error>(sum.wrapping_add(digest(&std::fs::read(f)?)))
            })
            .map_err(|e| format!("cannot read back the test files: {e}"))?;
        if warm != corpus.expected {
            return Err("the test files read back differently from what was written".into());
        }
        Ok(corpus)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Checks a variant's sum of digests.
    pub fn check(&self, what: &str, got: u64) -> Result<(), String> {
        if got == self.expected {
            Ok(())
        } else {
            Err(format!(
                "checksum mismatch in {what}: {got:#x}, expected {:#x}",
                self.expected
            ))
        }
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corpus_checks_itself_and_leaves_nothing_behind() {
        let parent = std::env::temp_dir();
        let dir;
        {
            let c = Corpus::create(&parent, 10, 5000).unwrap();
            dir = c.dir().to_path_buf();
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 10);
            let sum = c.files.iter().fold(0u64, |s, f| {
                s.wrapping_add(digest(&std::fs::read(f).unwrap()))
            });
            assert!(c.check("test", sum).is_ok());
            assert!(
                c.check("test", sum ^ 1)
                    .unwrap_err()
                    .contains("checksum mismatch")
            );
        }
        assert!(!dir.exists(), "the scratch directory is removed on drop");
    }

    #[test]
    fn a_killed_run_s_directory_is_swept_and_a_live_one_kept() {
        let parent = tempfile::tempdir().unwrap();
        let dead = parent.path().join("ch04-fs-4000000000-0");
        let live = ScratchDir::new(parent.path()).unwrap();
        let other = parent.path().join("ch04-fs-notes");
        for d in [&dead, &other] {
            std::fs::create_dir(d).unwrap();
        }
        ScratchDir::sweep(parent.path());
        assert!(!dead.exists(), "no process 4000000000: swept");
        assert!(live.path().exists(), "this process's own directory stays");
        assert!(other.exists(), "a name that is not ours stays");
    }

    #[test]
    fn a_missing_parent_is_a_clear_error() {
        let e = Corpus::create(Path::new("/nonexistent/ch04"), 1, 10).unwrap_err();
        assert!(e.contains("cannot create a directory"), "{e}");
    }

    #[test]
    fn digests_see_every_byte() {
        let a = contents(3, 4096);
        let mut b = a.clone();
        b[4095] ^= 1;
        assert_ne!(digest(&a), digest(&b));
        assert_ne!(contents(1, 64), contents(2, 64));
    }
}
