//! TLS failures in words: an `openssl s_server` with a certificate made by
//! openssl, and a follower that trusts the wrong CA (named, with the
//! certificate the server presented), the system's CAs, the wrong name;
//! the insecure flag alone and with a CA (refused, as kubectl refuses it);
//! a server that wants a client certificate.

mod follow_support;

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use follow_support::*;
use hush_server::follow::{FollowError, MemoryMirror, connect};

/// `openssl s_server` with the test server certificate, answering HTTP
/// with its status page (`-www`); `extra` adds options.
struct SServer {
    child: Child,
    port: u16,
}

impl SServer {
    fn start(certs: &Certs, extra: &[&str]) -> SServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("openssl")
            .args(["s_server", "-quiet", "-www", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(certs.file("server.crt"))
            .arg("-key")
            .arg(certs.file("server.key"))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting openssl s_server");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "openssl s_server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        SServer { child, port }
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }
}

impl Drop for SServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The error `check` gives with a kubeconfig for `server` whose cluster
/// entry is `cluster`.
async fn checked(dir: &TempDir, server: &str, cluster: &str) -> FollowError {
    let file = dir.write("kubeconfig", &kubeconfig(server, cluster, "    token: t\n"));
    let connection = connect(&options(&file)).await.unwrap();
    connection.check(None).await.unwrap_err()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_ca_names_the_ca_file_and_the_certificate_the_server_presented() {
    let dir = TempDir::new("wrong-ca");
    let certs = Certs::new(&dir);
    let server = SServer::start(&certs, &[]);
    let error = checked(
        &dir,
        &server.url(),
        "    certificate-authority: other-ca.crt\n",
    )
    .await;
    let FollowError::Untrusted {
        trust,
        presented,
        cause,
        fix,
        ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(
        *trust,
        format!(
            "the CA in {} (certificate-authority of cluster \"hush\")",
            certs.file("other-ca.crt").display()
        )
    );
    assert_eq!(cause, "it is not signed by a CA hush trusts");
    let presented = presented.as_deref().unwrap();
    assert!(
        presented.starts_with("\"CN=hush test server\" issued by \"CN=hush test CA\", valid from "),
        "{presented}"
    );
    assert!(
        presented.ends_with(", for IP:127.0.0.1, DNS:localhost"),
        "{presented}"
    );
    assert_eq!(
        fix,
        "Point certificate-authority (or certificate-authority-data) of the cluster at the CA \
         that signed the server's certificate"
    );
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "the API server at {} presented a certificate that is not trusted: it is not signed by a CA hush trusts",
            server.url()
        )),
        "{text}"
    );
    assert!(text.contains("other-ca.crt"), "{text}");

    // The follower says the same, and keeps trying.
    let file = dir.path("kubeconfig");
    let connection = connect(&options(&file)).await.unwrap();
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("two failed attempts", |f| {
            f.state.errors("untrusted-certificate") >= 2
        })
        .await;
    assert_eq!(follower.state.last_error().unwrap().error, error);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_ca_given_as_data_and_no_ca_at_all_are_named_too() {
    let dir = TempDir::new("ca-data");
    let certs = Certs::new(&dir);
    let server = SServer::start(&certs, &[]);
    let error = checked(
        &dir,
        &server.url(),
        &format!(
            "    certificate-authority-data: {}\n",
            certs.data("other-ca.crt")
        ),
    )
    .await;
    assert!(
        error.to_string().contains(
            "hush checked it against the CA in certificate-authority-data of cluster \"hush\""
        ),
        "{error}"
    );
    let error = checked(&dir, &server.url(), "").await;
    assert!(
        error.to_string().contains(
            "hush checked it against the system's trusted CAs (cluster \"hush\" names no certificate-authority)"
        ),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_for_other_names_says_which_names_it_has() {
    let dir = TempDir::new("wrong-name");
    let certs = Certs::new(&dir);
    let server = SServer::start(&certs, &[]);
    let error = checked(
        &dir,
        &server.url(),
        "    certificate-authority: ca.crt\n    tls-server-name: api.example\n",
    )
    .await;
    let FollowError::Untrusted {
        cause,
        fix,
        presented,
        ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(cause, "it is not valid for the name api.example");
    assert_eq!(
        fix,
        "Connect by a name the certificate has, or set tls-server-name to one"
    );
    // The names it has are in the description of what it presented.
    assert!(
        presented
            .as_deref()
            .unwrap()
            .ends_with(", for IP:127.0.0.1, DNS:localhost"),
        "{presented:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insecure_skip_tls_verify_passes_tls_and_with_a_ca_is_refused_as_kubectl_refuses_it() {
    let dir = TempDir::new("insecure");
    let certs = Certs::new(&dir);
    let server = SServer::start(&certs, &[]);
    // TLS passes; s_server's status page is not an event list.
    let error = checked(&dir, &server.url(), "    insecure-skip-tls-verify: true\n").await;
    assert_eq!(error.kind(), "decode", "{error}");

    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &server.url(),
            "    insecure-skip-tls-verify: true\n    certificate-authority: ca.crt\n",
            "    token: t\n",
        ),
    );
    let error = connect(&options(&file)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cluster \"hush\" in kubeconfig {} sets both insecure-skip-tls-verify and a \
             certificate-authority; kubectl refuses this too (specifying a root certificates file \
             with the insecure flag is not allowed): remove one",
            file.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_wants_a_client_certificate_says_so() {
    let dir = TempDir::new("no-client-cert");
    let certs = Certs::new(&dir);
    let ca = certs.file("ca.crt");
    // TLS 1.2, where the refusal is part of the handshake. (With 1.3 the
    // server refuses after the client has sent its request, and closing
    // with that request unread may reset the connection before the client
    // reads the alert.)
    let server = SServer::start(
        &certs,
        &["-tls1_2", "-Verify", "1", "-CAfile", ca.to_str().unwrap()],
    );
    let error = checked(&dir, &server.url(), "    certificate-authority: ca.crt\n").await;
    assert_eq!(error.kind(), "tls", "{error}");
    assert!(
        error.to_string().contains(
            "check that user \"alice\" has one it accepts (a bearer token (token in the kubeconfig))"
        ),
        "{error}"
    );
}
