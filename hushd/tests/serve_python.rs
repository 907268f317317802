//! The official Kubernetes Python client (pinned, in the venv
//! `scripts/lib/setup.sh` creates under `target/`) against a `hushd serve`
//! started here: `tests/python/test_serve.py` creates, lists with
//! selectors and pages, patches, replaces, deletes and watches, in both
//! API groups, and meets the spam filter's 429.

mod serve_support;

use std::path::PathBuf;
use std::process::Command;

use serve_support::{Server, TempDir};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_python_client_works_against_serve() {
    let python = root().join("target/python-client/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test (ensure_python_client creates it)",
        python.display()
    );
    let dir = TempDir::new("python");
    let server = Server::start(&dir, &["--burst", "5"]);
    let out = Command::new(&python)
        .arg(root().join("tests/python/test_serve.py"))
        .arg(server.url())
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python checks failed:\n{stdout}{stderr}\nserver log:\n{}",
        server.log()
    );
    assert!(
        stdout.contains("python client: all checks passed"),
        "{stdout}"
    );
}
