//! Starting and stopping `tauri-driver`, and finding the app processes it starts.
//!
//! Lessons from `tauri-on-linux.md`: the driver's output goes to a file (an orphaned app holding
//! the test runner's pipe hung a run for ten minutes), the app must have exited before the
//! driver is stopped, and the driver is stopped with SIGTERM so that it stops WebKitWebDriver.

use std::collections::HashMap;
use std::fs::File;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

const PORT: u16 = 4444;
const NATIVE_PORT: u16 = 4445;
const NATIVE_DRIVER: &str = "/usr/bin/WebKitWebDriver";

/// A running `tauri-driver`; stopped with SIGTERM on [`TauriDriver::stop`] or drop.
pub struct TauriDriver {
    child: Option<Child>,
    log: PathBuf,
}

impl TauriDriver {
    /// Starts the driver with its output in `log` and waits until it accepts connections.
    /// The apps it starts get `home` as their home folder (`HOME`; `XDG_CONFIG_HOME` unset): the
    /// machine's config and sessions stay out, and the page shows the scratch files as `~/…`.
    pub fn start(log: &Path, home: &Path) -> anyhow::Result<Self> {
        if !Path::new(NATIVE_DRIVER).exists() {
            bail!("{NATIVE_DRIVER} not found: run scripts/install-deps.sh");
        }
        if TcpStream::connect(("127.0.0.1", PORT)).is_ok() {
            bail!("port {PORT} is already in use: is another tauri-driver running?");
        }
        let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let child = Command::new(tauri_driver_path())
            .args(["--port", &PORT.to_string(), "--native-port", &NATIVE_PORT.to_string()])
            .args(["--native-driver", NATIVE_DRIVER])
            .env("HOME", home)
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .context("starting tauri-driver (scripts/install-deps.sh installs it)")?;
        let mut driver = Self { child: Some(child), log: log.to_owned() };
        driver.wait_for_ports(Duration::from_secs(20))?;
        Ok(driver)
    }

    /// The WebDriver endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{PORT}")
    }

    /// The file holding the driver's output.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// Waits until tauri-driver and the WebKitWebDriver it starts both listen: a session asked
    /// for before the second does fails with "connection refused" (seen on a fresh machine's
    /// first case, stop 31).
    fn wait_for_ports(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if [PORT, NATIVE_PORT].iter().all(|&port| TcpStream::connect(("127.0.0.1", port)).is_ok()) {
                return Ok(());
            }
            let child = self.child.as_mut().expect("driver running");
            if let Some(status) = child.try_wait()? {
                bail!("tauri-driver exited ({status}); see {}", self.log.display());
            }
            if Instant::now() > deadline {
                bail!("tauri-driver and its native driver not both listening after {timeout:?}; see {}", self.log.display());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Processes under the driver whose executable is `exe`: the app started for a session.
    pub fn descendants_running(&self, exe: &Path) -> Vec<u32> {
        let Some(child) = &self.child else {
            return Vec::new();
        };
        descendants(child.id()).into_iter().filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe)).collect()
    }

    /// WebKit's web processes (the page's renderer) of the app processes running `exe`.
    pub fn web_processes_of(&self, exe: &Path) -> Vec<u32> {
        let is_web = |pid: &u32| std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.contains("WebProces"));
        self.descendants_running(exe).into_iter().flat_map(descendants).filter(is_web).collect()
    }

    /// Sends SIGTERM and waits for the driver to exit (SIGKILL after 10 s).
    pub fn stop(mut self) -> anyhow::Result<()> {
        self.terminate()
    }

    fn terminate(&mut self) -> anyhow::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        if child.try_wait()?.is_some() {
            return Ok(());
        }
        // std only sends SIGKILL, which would orphan WebKitWebDriver; `kill` needs no unsafe.
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().context("running kill -TERM")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                child.kill()?;
                child.wait()?;
                bail!("tauri-driver ignored SIGTERM for 10 s and was killed");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }
}

impl Drop for TauriDriver {
    fn drop(&mut self) {
        if let Err(err) = self.terminate() {
            eprintln!("e2e: stopping tauri-driver: {err:#}");
        }
    }
}

/// Waits until none of `pids` is running any more (zombies count as gone); kills those left at
/// the timeout.
pub fn wait_for_exit(pids: &[u32], timeout: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let running: Vec<u32> = pids.iter().copied().filter(|&pid| is_running(pid)).collect();
        if running.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            // What each thread was doing, for the report; then killed, so that this case fails
            // alone: a leftover app would otherwise be counted against every later case started
            // by the same driver.
            let threads: Vec<String> = running.iter().map(|&pid| threads_of(pid)).collect();
            for pid in &running {
                let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            }
            bail!("app processes {running:?} still running {timeout:?} after quit (killed); their threads: {}", threads.join("; "));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `tauri-driver` from PATH, else from cargo's bin directory (`cargo install` puts it there).
fn tauri_driver_path() -> PathBuf {
    let in_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("tauri-driver"))
        .find(|path| path.is_file());
    in_path.unwrap_or_else(|| {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
            .unwrap_or_default();
        cargo_home.join("bin/tauri-driver")
    })
}

/// `(pid, ppid, state)` of every process, from `/proc/*/stat`.
fn processes() -> Vec<(u32, u32, char)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so split at the last `)`.
        let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
        let state = fields.next()?.chars().next()?;
        let ppid = fields.next()?.parse().ok()?;
        Some((pid, ppid, state))
    })
    .collect()
}

fn descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (pid, ppid, _) in processes() {
        children.entry(ppid).or_default().push(pid);
    }
    let mut res = Vec::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            res.push(child);
            stack.push(child);
        }
    }
    res
}

/// `name state wchan` of each thread of `pid`: where a process that does not exit is waiting.
fn threads_of(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return format!("{pid}: gone");
    };
    let mut res = Vec::new();
    for task in tasks.flatten() {
        let dir = task.path();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default().trim().to_owned();
        let stat = read("stat");
        let state = stat.rfind(')').and_then(|end| stat[end + 1..].split_whitespace().next().map(str::to_owned)).unwrap_or_default();
        res.push(format!("{} {state} {}", read("comm"), read("wchan")));
    }
    format!("{pid}: [{}]", res.join(", "))
}

fn is_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rfind(')').and_then(|end| stat[end + 1..].trim_start().chars().next());
    !matches!(state, None | Some('Z' | 'X'))
}
