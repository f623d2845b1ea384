//! A real `redis-server` for the Redis store's tests: on its own port, in
//! a temporary directory, without persistence; killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Set (CI sets it) to fail, not skip, when `redis-server` is missing.
const REQUIRE_REDIS: &str = "TOOLCALL_REQUIRE_REDIS";

/// How long a starting server has to answer.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// Ports below Linux's ephemeral range (32768 up), which the kernel never
/// hands out for `bind(0)` or an outgoing connection, so that a test's
/// port stays free while its server is down for a restart. Each port is
/// used once per test process; another process's server is detected and
/// skipped.
const FIRST_PORT: u16 = 20_000;
const PORTS: u16 = 12_000;

pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    extra: Vec<String>,
    child: Option<Child>,
}

/// `redis-server`'s path, or `None` (after saying why the test is skipped)
/// if it is not installed; panics if it must be.
pub fn redis_server() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os(REQUIRE_REDIS).is_none(),
            "redis-server is not installed and {REQUIRE_REDIS} is set"
        );
        eprintln!(
            "skipped: redis-server is not installed (apt-get install redis-server; set {REQUIRE_REDIS}=1 to make this a failure)"
        );
    }
    found
}

/// A port no server of this process has had, nor has now.
pub fn unused_port() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let start = (std::process::id() % u32::from(PORTS)) as u16;
    loop {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed);
        assert!(offset < PORTS, "no free port left for redis-server");
        let port = FIRST_PORT + (start + offset) % PORTS;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

impl RedisServer {
    /// A server on a fresh port, `extra` added to its flags; `None` if
    /// `redis-server` is not installed (and need not be).
    pub async fn start(extra: &[&str]) -> Option<RedisServer> {
        let binary = redis_server()?;
        for _ in 0..20 {
            let port = unused_port();
            if let Some(server) = RedisServer::start_on(&binary, port, extra).await {
                return Some(server);
            }
        }
        panic!("redis-server did not start on any of 20 ports");
    }

    /// A server that also takes TLS on a second port (returned), with the
    /// certificate in `testdata/` for 127.0.0.1, signed by `testdata/ca.crt`.
    pub async fn start_with_tls() -> Option<(RedisServer, u16)> {
        let binary = redis_server()?;
        let testdata = testdata();
        let file = |name: &str| testdata.join(name).to_string_lossy().into_owned();
        for _ in 0..20 {
            let (port, tls_port) = (unused_port(), unused_port());
            let tls_flags = [
                "--tls-port".to_owned(),
                tls_port.to_string(),
                "--tls-cert-file".to_owned(),
                file("server.crt"),
                "--tls-key-file".to_owned(),
                file("server.key"),
                "--tls-ca-cert-file".to_owned(),
                file("ca.crt"),
                "--tls-auth-clients".to_owned(),
                "no".to_owned(),
            ];
            let flags: Vec<&str> = tls_flags.iter().map(String::as_str).collect();
            if let Some(server) = RedisServer::start_on(&binary, port, &flags).await {
                return Some((server, tls_port));
            }
        }
        panic!("redis-server did not start with TLS on any of 20 port pairs");
    }

    /// A server on `port` (which a store may already point at); `None` if
    /// it could not take the port.
    pub async fn start_on(binary: &Path, port: u16, extra: &[&str]) -> Option<RedisServer> {
        let dir =
            std::env::temp_dir().join(format!("toolcall-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut server = RedisServer {
            port,
            dir,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            child: None,
        };
        server.spawn(binary).await.then_some(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// The `--requirepass` among the extra flags.
    fn password(&self) -> Option<&str> {
        let at = self.extra.iter().position(|flag| flag == "--requirepass")?;
        self.extra.get(at + 1).map(String::as_str)
    }

    /// Kills the server (SIGKILL, as a crash or OOM kill would).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, empty.
    pub async fn restart(&mut self) {
        self.kill();
        let binary = redis_server().expect("it ran before");
        assert!(
            self.spawn(&binary).await,
            "redis-server restarts on port {}",
            self.port
        );
    }

    /// Starts the process and waits until it answers; false if it exited
    /// (the port was taken).
    async fn spawn(&mut self, binary: &Path) -> bool {
        let port = self.port.to_string();
        let mut command = Command::new(binary);
        command
            .args([
                "--port",
                &port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(&self.dir)
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command.spawn().expect("redis-server runs");
        self.child = Some(child);
        let deadline = Instant::now() + START_DEADLINE;
        while Instant::now() < deadline {
            if let Some(Ok(Some(_))) = self.child.as_mut().map(Child::try_wait) {
                self.child = None;
                return false;
            }
            let pid = self.pid();
            if answers(self.port, pid, self.password()).await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "redis-server on port {} did not answer within {START_DEADLINE:?}",
            self.port
        );
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The test certificates: a CA and a server certificate for 127.0.0.1
/// signed by it, valid 2000 to 2100 (made with `openssl ca`; the CA's key
/// was thrown away).
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/proxy/store/testdata")
}

/// Whether the Redis on `port` answers, and is the process `pid` (not
/// another test process's server that took the port first).
async fn answers(port: u16, pid: u32, password: Option<&str>) -> bool {
    let info = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.ok()?;
        let auth = password.map_or_else(String::new, |p| format!("AUTH {p}\r\n"));
        stream
            .write_all(format!("{auth}INFO server\r\n").as_bytes())
            .await
            .ok()?;
        let wanted = format!("\r\nprocess_id:{pid}\r\n");
        let mut reply = Vec::new();
        let mut buffer = [0u8; 4096];
        while reply.len() < 1 << 16 {
            let read = stream.read(&mut buffer).await.ok()?;
            if read == 0 {
                return None;
            }
            reply.extend_from_slice(&buffer[..read]);
            if contains(&reply, wanted.as_bytes()) {
                return Some(());
            }
        }
        None
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(1), info).await,
        Ok(Some(()))
    )
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}
