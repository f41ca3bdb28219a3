//! A PostgreSQL server of the run's own: a fresh cluster in a temporary directory
//! (`initdb`), `postgres` listening on 127.0.0.1 (with a password made for the run)
//! and on a socket in that directory, stopped and removed when the [`Postgres`] value
//! is dropped, also after an error, Ctrl-C, SIGTERM or SIGHUP ([`stop_on_signal`]).
//!
//! PostgreSQL refuses to run as root; as root, the server runs as the unprivileged
//! user Debian's package creates (`postgres`).

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The database the listing creates, and the role it connects as.
pub const DATABASE: &str = "bookshelf";
pub const ROLE: &str = "bookshelf";

/// Where a temporary cluster lives: `<tmp>/ch08-postgres-<pid>-<n>`.
const PREFIX: &str = "ch08-postgres-";

/// How to start the server.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A port on 127.0.0.1; `None` picks a free one.
    pub port: Option<u16>,
    /// An existing data directory to use and keep (initialised if empty);
    /// `None` makes a temporary one and removes it at the end.
    pub data: Option<PathBuf>,
    /// `max_connections` of the server.
    pub max_connections: u32,
}

/// A running server.
pub struct Postgres {
    child: Option<Child>,
    /// The temporary directory to remove at the end (None for a kept `--pg-data`).
    temporary: Option<PathBuf>,
    data: PathBuf,
    /// Where the server's socket is: the temporary directory, or the data directory.
    socket_dir: PathBuf,
    port: u16,
    password: String,
    version: String,
}

/// What [`stop_on_signal`] stops and removes: filled in by [`Postgres::start`] as soon
/// as the directory, then the server, exist; emptied when [`Postgres::stop`] takes
/// them over.
#[derive(Debug, Default)]
struct Cleanup {
    pid: Option<u32>,
    temporary: Option<PathBuf>,
}

static CLEANUP: Mutex<Cleanup> = Mutex::new(Cleanup {
    pid: None,
    temporary: None,
});

fn cleanup() -> std::sync::MutexGuard<'static, Cleanup> {
    CLEANUP.lock().unwrap_or_else(|e| e.into_inner())
}

impl Postgres {
    /// Initialises (if needed) and starts a cluster, and creates the listing's role
    /// and database. Every failure says what to do about it.
    pub fn start(options: &Options) -> Result<Postgres, String> {
        let bin = server_binaries()?;
        let user = server_user()?;
        remove_abandoned_clusters();
        let (temporary, data) = match &options.data {
            Some(dir) => (None, dir.clone()),
            None => {
                let dir = fresh_directory()?;
                cleanup().temporary = Some(dir.clone());
                (Some(dir.clone()), dir.join("data"))
            }
        };
        let mut pg = Postgres {
            child: None,
            temporary: temporary.clone(),
            socket_dir: temporary.clone().unwrap_or_else(|| data.clone()),
            data: data.clone(),
            port: 0,
            password: random_password()?,
            version: String::new(),
        };
        match &temporary {
            Some(dir) => user.own(dir)?,
            None => user.can_use(&data)?,
        }
        if !data.join("PG_VERSION").is_file() {
            initdb(&bin, &user, &data)?;
        }
        pg.version = std::fs::read_to_string(data.join("PG_VERSION"))
            .map_err(|e| {
                format!("{}: not a PostgreSQL data directory: {e}", data.display())
            })?
            .trim()
            .to_string();
        pg.port = match options.port {
            Some(port) => port,
            None => free_port()?,
        };
        let log = pg.socket_dir.join("postgres.log");
        let child = user
            .command(&bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args(["-h", "127.0.0.1", "-p", &pg.port.to_string(), "-k"])
            .arg(&pg.socket_dir)
            .args([
                "-c",
                &format!("max_connections={}", options.max_connections.max(20)),
            ])
            // A scratch database: durability costs fsyncs the experiments do not
            // study, and no autovacuum may start in the middle of a measurement.
            .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
            .args(["-c", "autovacuum=off"])
            // One CPU per query: Experiment 6 counts the CPUs queries can use.
            .args(["-c", "max_parallel_workers_per_gather=0"])
            .args(["-c", "shared_preload_libraries=pg_stat_statements"])
            .args(["-c", "pg_stat_statements.track=all"])
            // The log line the start waits for, in English whatever the locale.
            .args(["-c", "lc_messages=C"])
            // A line for every connection the server accepts, before its startup packet is
            // read: a connect a client gave up on counts too (`connections_received`).
            .args(["-c", "log_connections=on"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(&log)
                    .map_err(|e| format!("cannot write {}: {e}", log.display()))?,
            )
            // Its own process group: Ctrl-C reaches this program, which stops it.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start postgres: {e}"))?;
        cleanup().pid = Some(child.id());
        pg.child = Some(child);
        wait_until_ready(pg.child.as_mut().expect("just set"), &log, pg.port)?;
        pg.create_database(&bin, &user)?;
        Ok(pg)
    }

    /// `postgres://bookshelf:PASSWORD@127.0.0.1:PORT/bookshelf`: the password is made
    /// for the run, so that no other local user can log in while it lasts.
    pub fn url(&self) -> String {
        format!(
            "postgres://{ROLE}:{}@127.0.0.1:{}/{DATABASE}",
            self.password, self.port
        )
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's major version, from its data directory.
    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn data_dir(&self) -> &Path {
        &self.data
    }

    /// Connections the server has accepted since it started, counted from its log's
    /// "connection received" lines (`log_connections`): every connect that reached it,
    /// finished or not.
    pub fn connections_received(&self) -> Result<u64, String> {
        let log = self.socket_dir.join("postgres.log");
        let bytes = std::fs::read(&log)
            .map_err(|e| format!("cannot read {}: {e}", log.display()))?;
        Ok(String::from_utf8_lossy(&bytes)
            .matches("connection received: ")
            .count() as u64)
    }

    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// CPU time used so far by the server: the postmaster and every process it
    /// started (one backend per connection), from /proc (see `server_cpu_time`).
    pub fn cpu_time(&self) -> Duration {
        server_cpu_time(self.pid())
    }

    /// Clock ticks of CPU each live backend has used (utime + stime), by pid: what
    /// the noise sampler counts as other processes' time (the postmaster is this
    /// program's child, which it leaves out already), so that the listing can take
    /// it out again.
    pub fn ticks_by_process(&self) -> HashMap<u32, u64> {
        let mut out = HashMap::new();
        for_each_server_process(self.pid(), |p, is_postmaster, f| {
            if !is_postmaster {
                out.insert(p, f(11) + f(12));
            }
        });
        out
    }

    /// Waits until no client's backend is left (its title names the client's
    /// address: `postgres: user db 127.0.0.1(port) idle`), nor one that has exited
    /// and not yet been reaped, or `limit` has passed.
    pub fn wait_for_no_clients(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.client_backends() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn client_backends(&self) -> usize {
        let mut n = 0;
        for_each_server_process(self.pid(), |p, is_postmaster, _| {
            let title =
                std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            let title = String::from_utf8_lossy(&title);
            // An exiting backend loses its title with its memory (Linux's
            // proc_pid_cmdline_read reads nothing once exit_mm ran), a zombie too,
            // and the CPU time of both can still be read: each counts until reaped.
            if !is_postmaster
                && (title.contains("127.0.0.1(")
                    || title.contains("[local]")
                    || title.is_empty())
            {
                n += 1;
            }
        });
        n
    }

    /// Whether the postmaster is still running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Stops the server (fast shutdown) and removes a temporary cluster.
    pub fn stop(mut self) -> Result<(), String> {
        self.stop_now()
    }

    fn stop_now(&mut self) -> Result<(), String> {
        // Held while stopping: a signal meanwhile waits, then finds nothing to do.
        let mut pending = cleanup();
        *pending = Cleanup::default();
        if let Some(mut child) = self.child.take() {
            stop_server(&mut child);
        }
        if let Some(dir) = self.temporary.take() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
        }
        Ok(())
    }

    /// psql as the server's own superuser, over the socket (no password there).
    fn psql(&self, bin: &Path, user: &User) -> Command {
        let mut c = user.command(&bin.join("psql"));
        c.arg("-X").arg("-h").arg(&self.socket_dir);
        c.args([
            "-p",
            &self.port.to_string(),
            "-U",
            &user.name,
            "-d",
            "postgres",
        ]);
        c
    }

    fn create_database(&self, bin: &Path, user: &User) -> Result<(), String> {
        let exists = self
            .psql(bin, user)
            .arg("-tAc")
            .arg(format!("SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}'"))
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        let exists = String::from_utf8_lossy(&exists.stdout).trim() == "1";
        // A superuser (pg_stat_statements_reset, CREATE EXTENSION): with a password.
        let verb = if exists { "ALTER" } else { "CREATE" };
        let mut psql = self.psql(bin, user);
        psql.args(["-v", "ON_ERROR_STOP=1", "-c"]).arg(format!(
            "{verb} ROLE {ROLE} LOGIN SUPERUSER PASSWORD '{}'",
            self.password
        ));
        if !exists {
            psql.args(["-c", &format!("CREATE DATABASE {DATABASE} OWNER {ROLE}")]);
        }
        run(&mut psql)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Err(e) = self.stop_now() {
            eprintln!("warning: {e}");
        }
    }
}

// ANCHOR: stop_on_signal
/// On SIGINT, SIGTERM or SIGHUP: stops the server [`Postgres::start`] started (or is
/// starting), removes its temporary directory and exits with 128 + the signal's
/// number, so that an interrupted run leaves nothing behind. Call it before
/// `Postgres::start`; it waits on a thread of its own.
pub fn stop_on_signal() {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a signal runtime");
        let code = rt.block_on(async {
            use tokio::signal::unix::{SignalKind, signal};
            let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
            let mut term =
                signal(SignalKind::terminate()).expect("SIGTERM handler");
            let mut hup = signal(SignalKind::hangup()).expect("SIGHUP handler");
            tokio::select! {
                _ = int.recv() => 128 + libc::SIGINT,
                _ = term.recv() => 128 + libc::SIGTERM,
                _ = hup.recv() => 128 + libc::SIGHUP,
            }
        });
        // Held to the end: the main thread, whose queries now fail, waits in `stop`
        // instead of exiting first with its own error.
        let mut held = cleanup();
        let pending = std::mem::take(&mut *held);
        if let Some(pid) = pending.pid {
            eprintln!("interrupted: stopping PostgreSQL (pid {pid})");
            stop_pid(pid);
        }
        if let Some(dir) = pending.temporary {
            let _ = std::fs::remove_dir_all(dir);
        }
        std::process::exit(code);
    });
}
// ANCHOR_END: stop_on_signal

/// The directory holding `initdb`, `postgres` and `psql`: the PATH first, then
/// Debian's `/usr/lib/postgresql/<version>/bin` (the newest).
fn server_binaries() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    for dir in &on_path {
        let dir = std::fs::canonicalize(dir.join("initdb"))
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        if let Some(dir) = dir.filter(|d| d.join("postgres").is_file()) {
            return Ok(dir);
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").is_file() && b.join("postgres").is_file())
        .collect();
    versions.sort_by_key(|b| {
        b.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop().ok_or_else(|| {
        "PostgreSQL's server is not installed: initdb is neither on the PATH nor in \
         /usr/lib/postgresql/*/bin. Install it (Debian: apt-get install postgresql) and rerun"
            .to_string()
    })
}

/// Who the server runs as: this user, or `postgres` when this is root.
struct User {
    name: String,
    ids: Option<(u32, u32)>,
}

fn server_user() -> Result<User, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let name = std::env::var("USER").unwrap_or_else(|_| "postgres".into());
        return Ok(User { name, ids: None });
    }
    let name = CString::new("postgres").expect("no NUL");
    // SAFETY: a NUL-terminated name; the result is read before any other getpw* call.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return Err("PostgreSQL refuses to run as root, and there is no user `postgres` to \
                    run it as: create one (Debian's postgresql package does) or run as \
                    another user"
            .into());
    }
    // SAFETY: pw is non-null and points to getpwnam's static record.
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Ok(User {
        name: "postgres".into(),
        ids: Some((uid, gid)),
    })
}

impl User {
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        if let Some((uid, gid)) = self.ids {
            c.uid(uid).gid(gid);
        }
        // The server's children must not inherit a locale the machine lacks.
        c.env("LC_ALL", "C").env_remove("PGDATA");
        c
    }

    /// Checks that the server's user can use `data` (a `--pg-data` directory),
    /// making it if it does not exist.
    fn can_use(&self, data: &Path) -> Result<(), String> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if !data.exists() {
            std::fs::create_dir_all(data)
                .and_then(|()| {
                    std::fs::set_permissions(data, PermissionsExt::from_mode(0o700))
                })
                .map_err(|e| format!("cannot create {}: {e}", data.display()))?;
            return self.own(data);
        }
        let owner = std::fs::metadata(data)
            .map_err(|e| format!("{}: {e}", data.display()))?
            .uid();
        match self.ids {
            Some((uid, _)) if owner != uid => Err(format!(
                "{} is not owned by {}, the user PostgreSQL runs as: chown -R {} {}",
                data.display(),
                self.name,
                self.name,
                data.display()
            )),
            _ => Ok(()),
        }
    }

    /// Gives `path` to the server's user (as root; otherwise it is ours already).
    fn own(&self, path: &Path) -> Result<(), String> {
        if let Some((uid, gid)) = self.ids {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| {
                format!("cannot give {} to postgres: {e}", path.display())
            })?;
        }
        Ok(())
    }
}

fn initdb(bin: &Path, user: &User, data: &Path) -> Result<(), String> {
    run(user.command(&bin.join("initdb")).arg("-D").arg(data).args([
        "-U",
        &user.name,
        // The socket (in a directory only the server's user may enter) trusts;
        // TCP asks for the run's password.
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "-E",
        "UTF8",
        "--no-sync",
        "--no-instructions",
    ]))
}

/// Runs a command to the end; its output becomes the error if it fails.
fn run(command: &mut Command) -> Result<(), String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} failed ({}): {} {}",
            Path::new(command.get_program()).display(),
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn fresh_directory() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for n in 0..100 {
        let dir = base.join(format!("{PREFIX}{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!(
        "cannot create a directory under {}",
        base.display()
    ))
}

/// Removes the temporary clusters of earlier runs whose process is gone (a run
/// killed with SIGKILL cannot clean up after itself).
fn remove_abandoned_clusters() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let data = entry.path().join("data");
            let server = std::fs::read_to_string(data.join("postmaster.pid"))
                .ok()
                .and_then(|t| t.lines().next()?.trim().parse::<u32>().ok());
            // Only a postmaster still running in that directory: pids are reused.
            if let Some(server) = server
                && std::fs::read_link(format!("/proc/{server}/cwd")).ok()
                    == std::fs::canonicalize(&data).ok()
            {
                stop_pid(server);
            }
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// 32 hexadecimal digits from the kernel's random source.
fn random_password() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A port on 127.0.0.1 that nothing listens on now.
fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// Waits until the server accepts connections on `port`, or fails with its log.
fn wait_until_ready(
    child: &mut Child,
    log: &Path,
    port: u16,
) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "PostgreSQL did not start ({status}); its log says:\n{}",
                tail(log, 10)
            ));
        }
        if std::fs::read_to_string(log).is_ok_and(|t| {
            t.contains("database system is ready to accept connections")
        }) && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            stop_server(child);
            return Err(format!(
                "PostgreSQL did not accept connections within 60 s; its log says:\n{}",
                tail(log, 10)
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tail(path: &Path, lines: usize) -> String {
    let all: Vec<String> = std::fs::File::open(path)
        .map(|f| BufReader::new(f).lines().map_while(Result::ok).collect())
        .unwrap_or_default();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// SIGINT is PostgreSQL's fast shutdown: it ends every session and exits.
fn stop_server(child: &mut Child) {
    stop_pid(child.id());
    let _ = child.wait();
}

/// Fast shutdown of a postmaster, then immediate (SIGQUIT), then SIGKILL.
fn stop_pid(pid: u32) {
    for (signal, wait) in [
        (libc::SIGINT, 10_000),
        (libc::SIGQUIT, 2_000),
        (libc::SIGKILL, 2_000),
    ] {
        // SAFETY: kill has no memory preconditions.
        if unsafe { libc::kill(pid as i32, signal) } != 0 {
            return; // gone already
        }
        let deadline = Instant::now() + Duration::from_millis(wait);
        while Instant::now() < deadline {
            if !alive(pid) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Whether `pid` is a live process (not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, r)| !r.starts_with('Z')))
        .unwrap_or(false)
}

/// The CPU time of `pid`, of the children it has reaped, and of its live children,
/// from /proc: each live process's in nanoseconds (`schedstat`: a backend is one
/// thread), the reaped backends' in clock ticks (`cutime`, `cstime`: the kernel
/// keeps no finer count of a child once it has exited).
fn server_cpu_time(pid: u32) -> Duration {
    // SAFETY: sysconf has no preconditions.
    let tick_ns = 1e9 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let mut ns = 0.0;
    for_each_server_process(pid, |p, is_postmaster, f| {
        ns += run_time_ns(p).unwrap_or((f(11) + f(12)) as f64 * tick_ns);
        if is_postmaster {
            ns += (f(13) + f(14)) as f64 * tick_ns;
        }
    });
    Duration::from_nanos(ns as u64)
}

/// The time a single-threaded process has run on a CPU, in nanoseconds
/// (`/proc/PID/schedstat`'s first field), where the kernel keeps it (a kernel
/// without schedstats shows zeros: `None`, so the caller falls back to ticks).
fn run_time_ns(pid: u32) -> Option<f64> {
    std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
        .filter(|&ns: &f64| ns > 0.0)
}

/// Calls `visit(pid, is_postmaster, field)` for the postmaster `pid` and each of its
/// children, `field(i)` reading the i-th field of /proc/PID/stat after the command
/// (state is 0, ppid 1, utime 11, stime 12, cutime 13, cstime 14).
fn for_each_server_process(
    pid: u32,
    mut visit: impl FnMut(u32, bool, &dyn Fn(usize) -> u64),
) {
    if pid == 0 {
        return; // no server (yet)
    }
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(p) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let field =
            |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        if p == pid || field(1) == pid as u64 {
            visit(p, p == pid, &field);
        }
    }
}
