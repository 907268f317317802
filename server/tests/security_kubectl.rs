//! kubectl against a real `hushd serve` over TLS (a CA and certificate
//! generated in `--cert-dir`, which kubectl verifies), with tokens from
//! `--token-auth-file`, client certificates from `--client-ca-file` and an
//! ABAC `--authorization-policy-file`: each way of authenticating creates,
//! gets, lists, watches and deletes events and runs `kubectl events`; a
//! wrong token, a read-only user and a user limited to one namespace get
//! exactly what kubectl prints for kube-apiserver's 401 and 403.

mod auth_support;
mod security_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use auth_support::{Ca, Kubectl, TempDir, kubectl};
use security_support::{Hushd, event_yaml};

const TOKENS: &str =
    "adm1n-t0ken,admin,1000,system:masters\nal1ce-t0ken,alice,1001,dev\nb0b-t0ken,bob,1002,dev\n";

const POLICY: &str = concat!(
    "# alice reads everything, writes nothing\n",
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\",\"readonly\":true}}\n",
    "# bob does anything, in shop only\n",
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"bob\",\"namespace\":\"shop\",\"resource\":\"*\",\"apiGroup\":\"*\"}}\n",
    "# the ops group (carol's certificate) does anything anywhere\n",
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"group\":\"ops\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\"}}\n",
);

/// A protected server and what its clients need.
struct Fixture {
    dir: TempDir,
    server: Hushd,
    /// kubectl's flags for the server and its CA.
    flags: Vec<String>,
}

fn start() -> Fixture {
    let dir = TempDir::new("security-kubectl");
    let clients = Ca::new("hush clients");
    clients.client("carol", &["ops"]).write(&dir, "carol");
    let client_ca = dir.write("clients-ca.crt", &clients.cert_pem);
    let tokens = dir.write("tokens.csv", TOKENS);
    let policy = dir.write("policy.jsonl", POLICY);
    let pki = dir.path("pki");
    let kubeconfig = dir.path("kubeconfig");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--cert-dir",
            pki.to_str().unwrap(),
            "--client-ca-file",
            client_ca.to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
            "--authorization-policy-file",
            policy.to_str().unwrap(),
            "--write-kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    assert!(server.url.starts_with("https://"), "{}", server.url);
    let flags = vec![
        format!("--server={}", server.url),
        format!("--certificate-authority={}", pki.join("ca.crt").display()),
    ];
    Fixture { dir, server, flags }
}

impl Fixture {
    /// kubectl with the server's flags, then `auth` (its credentials), then `args`.
    fn kubectl(&self, auth: &[String], args: &[&str]) -> Kubectl {
        let mut all: Vec<&str> = self.flags.iter().map(String::as_str).collect();
        all.extend(auth.iter().map(String::as_str));
        all.extend(args);
        kubectl(&self.dir.0, &[], &all)
    }

    /// `--token=TOKEN`.
    fn token(token: &str) -> Vec<String> {
        vec![format!("--token={token}")]
    }

    /// carol's client certificate.
    fn carol(&self) -> Vec<String> {
        vec![
            format!(
                "--client-certificate={}",
                self.dir.path("carol.crt").display()
            ),
            format!("--client-key={}", self.dir.path("carol.key").display()),
        ]
    }

    /// Writes an event's YAML and returns its path.
    fn event(&self, namespace: &str, name: &str, reason: &str) -> String {
        self.dir
            .write(
                &format!("{name}.yaml"),
                &event_yaml(namespace, name, reason),
            )
            .display()
            .to_string()
    }
}

/// The installed kubectl's minor version.
fn kubectl_minor() -> u32 {
    let out = Command::new("kubectl")
        .args(["version", "--client", "-o", "json"])
        .output()
        .expect("running kubectl");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kubectl version");
    let minor = v["clientVersion"]["minor"]
        .as_str()
        .expect("a minor version");
    minor.trim_end_matches('+').parse().expect("a number")
}

fn ok(out: &Kubectl) -> &str {
    assert!(out.ok, "kubectl failed:\n{}{}", out.stdout, out.stderr);
    &out.stdout
}

/// A running `kubectl get events -w`: its output lines as they come.
struct Watch {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Watch {
    fn start(dir: &TempDir, env: &[(&str, &str)], args: &[String]) -> Watch {
        let mut command = Command::new("kubectl");
        command
            .env("KUBECONFIG", "/dev/null")
            .env("HOME", &dir.0)
            .arg(format!("--cache-dir={}", dir.path("kube-cache").display()))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("running kubectl");
        let (send, lines) = mpsc::channel();
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let send = send.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    let _ = send.send(line);
                }
            });
        }
        Watch { child, lines }
    }

    /// Waits for a line containing `wanted`; the lines seen until then.
    fn wait_for(&self, wanted: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    let found = line.contains(wanted);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("kubectl's watch never printed {wanted:?}; it printed {seen:?}"),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates, gets, lists, watches and deletes events in `namespace`, and
/// runs `kubectl events`, with `run` (kubectl with some credentials) and
/// `watch` (the same, streaming).
fn exercise(
    f: &Fixture,
    namespace: &str,
    run: &dyn Fn(&[&str]) -> Kubectl,
    watch: &dyn Fn(&[&str]) -> Watch,
) {
    let first = f.event(namespace, "web.1", "BackOff");
    assert_eq!(
        ok(&run(&["create", "-f", &first])).trim(),
        "event/web.1 created"
    );
    let got: serde_json::Value = serde_json::from_str(ok(&run(&[
        "get", "event", "web.1", "-n", namespace, "-o", "json",
    ])))
    .unwrap();
    assert_eq!(got["metadata"]["name"], "web.1");
    assert_eq!(got["reason"], "BackOff");
    let table = ok(&run(&["get", "events", "-n", namespace])).to_string();
    assert!(table.starts_with("LAST SEEN"), "{table}");
    assert!(
        table.contains("BackOff") && table.contains("pod/web-1"),
        "{table}"
    );

    // The watch lists first (web.1), then streams what is created after.
    let watching = watch(&["get", "events", "-n", namespace, "-w", "-o", "name"]);
    watching.wait_for("event/web.1");
    let second = f.event(namespace, "web.2", "Unhealthy");
    assert_eq!(
        ok(&run(&["create", "-f", &second])).trim(),
        "event/web.2 created"
    );
    watching.wait_for("event/web.2");
    drop(watching);

    if kubectl_minor() >= 26 {
        let events = ok(&run(&["events", "-n", namespace])).to_string();
        assert!(
            events.contains("BackOff") && events.contains("Unhealthy"),
            "{events}"
        );
    } else {
        eprintln!(
            "skipped the `kubectl events` check: this kubectl is v1.{} and `kubectl events` needs 1.26 or later",
            kubectl_minor()
        );
    }

    assert_eq!(
        ok(&run(&["delete", "event", "web.1", "-n", namespace])).trim(),
        "event \"web.1\" deleted"
    );
    // (kubectl then asks whether the namespace exists, which hushd does
    // not serve: its message is the route's 404, not the event's.)
    let gone = run(&["get", "event", "web.1", "-n", namespace]);
    assert!(!gone.ok);
    assert!(
        gone.stderr.starts_with("Error from server (NotFound): "),
        "{}",
        gone.stderr
    );
    let left = ok(&run(&["get", "events", "-n", namespace, "-o", "name"])).to_string();
    assert_eq!(left.trim(), "event/web.2");
}

#[test]
fn kubectl_with_a_bearer_token() {
    let f = start();
    let auth = Fixture::token("adm1n-t0ken");
    let mut watch_args: Vec<String> = f.flags.clone();
    watch_args.extend(auth.clone());
    exercise(&f, "shop", &|args| f.kubectl(&auth, args), &|args| {
        let mut all = watch_args.clone();
        all.extend(args.iter().map(|a| a.to_string()));
        Watch::start(&f.dir, &[], &all)
    });
}

#[test]
fn kubectl_with_a_client_certificate() {
    let f = start();
    let auth = f.carol();
    let mut watch_args: Vec<String> = f.flags.clone();
    watch_args.extend(auth.clone());
    exercise(&f, "payments", &|args| f.kubectl(&auth, args), &|args| {
        let mut all = watch_args.clone();
        all.extend(args.iter().map(|a| a.to_string()));
        Watch::start(&f.dir, &[], &all)
    });
}

#[test]
fn kubectl_with_the_written_kubeconfig_verifying_the_ca() {
    let f = start();
    let kubeconfig = f.dir.path("kubeconfig").display().to_string();
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(
        text.contains(&format!("server: \"{}\"", f.server.url)),
        "{text}"
    );
    assert!(text.contains("certificate-authority-data:"), "{text}");
    assert!(!text.contains("insecure-skip-tls-verify"), "{text}");
    let env = [("KUBECONFIG", kubeconfig.as_str())];
    exercise(
        &f,
        "default",
        &|args| kubectl(&f.dir.0, &env, args),
        &|args| {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            Watch::start(&f.dir, &env, &args)
        },
    );
}

#[test]
fn a_wrong_token_is_told_to_log_in() {
    let f = start();
    // Before kubectl has the server's discovery cached, its discovery
    // fails first and it prints client-go's words for a 401, as it does
    // against kube-apiserver.
    let out = f.kubectl(&Fixture::token("wr0ng"), &["get", "events", "-n", "shop"]);
    assert!(!out.ok);
    // client-go's words for a 401: its own since 1.23 or so, the
    // Status's reason before (Debian's kubectl is v1.20).
    let last = out.stderr.lines().last().unwrap_or_default();
    assert!(
        [
            "error: You must be logged in to the server (the server has asked for the client to provide credentials)",
            "error: You must be logged in to the server (Unauthorized)",
        ]
        .contains(&last),
        "{}",
        out.stderr
    );
    // Once discovery is cached (a valid token used it), the 401 Status
    // itself reaches kubectl.
    ok(&f.kubectl(
        &Fixture::token("al1ce-t0ken"),
        &["get", "events", "-n", "shop"],
    ));
    let out = f.kubectl(&Fixture::token("wr0ng"), &["get", "events", "-n", "shop"]);
    assert!(!out.ok);
    assert_eq!(
        out.stderr.trim_end(),
        "error: You must be logged in to the server (Unauthorized)"
    );
}

#[test]
fn a_read_only_user_reads_and_is_forbidden_to_write() {
    let f = start();
    let admin = Fixture::token("adm1n-t0ken");
    let alice = Fixture::token("al1ce-t0ken");
    let event = f.event("shop", "web.1", "BackOff");
    ok(&f.kubectl(&admin, &["create", "-f", &event]));
    let listed = ok(&f.kubectl(&alice, &["get", "events", "-A"])).to_string();
    assert!(listed.contains("BackOff"), "{listed}");
    ok(&f.kubectl(&alice, &["get", "event", "web.1", "-n", "shop"]));

    let other = f.event("shop", "web.9", "Killing");
    let create = f.kubectl(&alice, &["create", "-f", &other]);
    assert!(!create.ok);
    assert_eq!(
        create.stderr.trim_end(),
        format!(
            "Error from server (Forbidden): error when creating \"{other}\": events is forbidden: User \"alice\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched."
        )
    );
    let delete = f.kubectl(&alice, &["delete", "event", "web.1", "-n", "shop"]);
    assert!(!delete.ok);
    assert_eq!(
        delete.stderr.trim_end(),
        "Error from server (Forbidden): events \"web.1\" is forbidden: User \"alice\" cannot delete resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched."
    );
    // Still there.
    ok(&f.kubectl(&admin, &["get", "event", "web.1", "-n", "shop"]));
}

#[test]
fn a_user_limited_to_one_namespace_is_forbidden_across_namespaces() {
    let f = start();
    let bob = Fixture::token("b0b-t0ken");
    let event = f.event("shop", "web.1", "BackOff");
    ok(&f.kubectl(&bob, &["create", "-f", &event]));
    let listed = ok(&f.kubectl(&bob, &["get", "events", "-n", "shop"])).to_string();
    assert!(listed.contains("BackOff"), "{listed}");
    for args in [
        vec!["get", "events", "-A"],
        vec!["get", "events", "-A", "-w"],
    ] {
        let out = f.kubectl(&bob, &args);
        assert!(!out.ok);
        assert_eq!(
            out.stderr.trim_end(),
            "Error from server (Forbidden): events is forbidden: User \"bob\" cannot list resource \"events\" in API group \"\" at the cluster scope: No policy matched.",
            "{args:?}"
        );
    }
    let elsewhere = f.kubectl(&bob, &["get", "events", "-n", "payments"]);
    assert_eq!(
        elsewhere.stderr.trim_end(),
        "Error from server (Forbidden): events is forbidden: User \"bob\" cannot list resource \"events\" in API group \"\" in the namespace \"payments\": No policy matched."
    );
}
