//! TLS serving seen by curl: HTTP/2 through ALPN and HTTP/1.1, TLS 1.2 as
//! the minimum, a server certificate the client does not trust, a client
//! that does not speak TLS; and `--cert-dir`: a CA and serving
//! certificate generated, kept across starts, issued again by the same
//! CA when the serving one is gone or expired.

mod auth_support;

use std::time::{Duration, Instant};

use auth_support::{Ca, TempDir, TestServer, curl};
use hush_server::auth::SecurityConfig;
use hush_server::tls::TlsConfig;
use hush_server::tls::generate::{self, Outcome};

fn given_files(dir: &TempDir, ca: &Ca) -> SecurityConfig {
    let (cert, key) = ca.server().write(dir, "server");
    SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            ..TlsConfig::default()
        },
        ..SecurityConfig::default()
    }
}

#[test]
fn clients_get_http2_through_alpn_or_http1() {
    let dir = TempDir::new("tls-protocols");
    let ca = Ca::new("protocols-ca");
    let server = TestServer::start(&given_files(&dir, &ca));
    let cacert = dir.write("ca.crt", &ca.cert_pem).display().to_string();
    let url = format!("{}/api/v1/events", server.url());

    let h2 = curl(&["--cacert", &cacert, "--http2", &url]);
    assert_eq!((h2.code, h2.http_version.as_str()), (200, "2"), "{h2:?}");
    assert_eq!(h2.json()["version"], "HTTP/2.0");
    assert_eq!(h2.json()["alpn"], "h2");
    let h1 = curl(&["--cacert", &cacert, "--http1.1", &url]);
    assert_eq!((h1.code, h1.http_version.as_str()), (200, "1.1"), "{h1:?}");
    assert_eq!(h1.json()["alpn"], "http/1.1");
    let tls12 = curl(&["--cacert", &cacert, "--tlsv1.2", "--tls-max", "1.2", &url]);
    assert_eq!(tls12.code, 200, "{tls12:?}");
    let tls11 = curl(&["--cacert", &cacert, "--tlsv1.1", "--tls-max", "1.1", &url]);
    assert_ne!(tls11.exit, 0, "TLS 1.1 must be refused: {tls11:?}");

    // A client that does not trust the certificate, and one that does not
    // speak TLS: each loses its own connection, both are counted.
    let failures = || {
        let text = server.metrics();
        let line = text
            .lines()
            .find(|l| l.starts_with("hush_tls_handshake_failures_total "))
            .unwrap()
            .to_string();
        line.rsplit(' ').next().unwrap().parse::<u64>().unwrap()
    };
    let before = failures();
    let stranger = dir
        .write("other.crt", &Ca::new("other").cert_pem)
        .display()
        .to_string();
    let untrusted = curl(&["--cacert", &stranger, &url]);
    assert_eq!(
        untrusted.exit, 60,
        "curl: certificate problem: {untrusted:?}"
    );
    let plain = curl(&[&url.replace("https://", "http://")]);
    assert_ne!(plain.code, 200);
    let deadline = Instant::now() + Duration::from_secs(10);
    while failures() < before + 2 {
        assert!(Instant::now() < deadline, "{}", server.metrics());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(curl(&["--cacert", &cacert, &url]).code, 200);
}

#[test]
fn a_cert_dir_gets_a_ca_and_serving_certificate_that_are_kept() {
    let dir = TempDir::new("tls-cert-dir");
    let pki = dir.path("pki");
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_dir: Some(pki.clone()),
            extra_names: vec!["hush.example".to_string()],
            ..TlsConfig::default()
        },
        ..SecurityConfig::default()
    };
    let read = |name: &str| std::fs::read(pki.join(name)).unwrap();
    let server = TestServer::start(&config);
    let cacert = pki.join("ca.crt").display().to_string();
    let port = server.address.port();
    for host in ["127.0.0.1", "localhost"] {
        let got = curl(&[
            "--cacert",
            &cacert,
            &format!("https://{host}:{port}/healthz"),
        ]);
        assert_eq!(got.code, 200, "{host}: {got:?}");
    }
    let named = curl(&[
        "--cacert",
        &cacert,
        "--resolve",
        &format!("hush.example:{port}:127.0.0.1"),
        &format!("https://hush.example:{port}/healthz"),
    ]);
    assert_eq!(named.code, 200, "{named:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |name: &str| {
            std::fs::metadata(pki.join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!((mode("ca.key"), mode("hushd.key")), (0o600, 0o600));
        assert_eq!(
            std::fs::metadata(&pki).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
    let (ca, leaf) = (read("ca.crt"), read("hushd.crt"));
    server.stop();

    // The next start reuses both.
    let server = TestServer::start(&config);
    assert_eq!(
        (read("ca.crt"), read("hushd.crt")),
        (ca.clone(), leaf.clone())
    );
    server.stop();

    // Without the serving certificate, the kept CA issues a new one: the
    // clients' CA file still works.
    std::fs::remove_file(pki.join("hushd.crt")).unwrap();
    let server = TestServer::start(&config);
    assert_eq!(read("ca.crt"), ca);
    assert_ne!(read("hushd.crt"), leaf);
    assert_eq!(
        curl(&["--cacert", &cacert, &format!("{}/healthz", server.url())]).code,
        200
    );
}

#[test]
fn generated_certificates_are_renewed_when_expired_or_missing_a_name() {
    let dir = TempDir::new("tls-renew");
    let names = generate::serving_names("127.0.0.1".parse().unwrap(), &[]);
    assert_eq!(names, ["127.0.0.1", "localhost", "::1"]);
    let now = time::OffsetDateTime::now_utc();
    let (files, outcome) = generate::ensure(&dir.0, &names, now).unwrap();
    assert_eq!(outcome, Outcome::Created);
    let ca = std::fs::read(&files.ca_cert).unwrap();
    assert_eq!(
        generate::ensure(&dir.0, &names, now).unwrap().1,
        Outcome::Reused
    );
    // A year and a month later the serving certificate has expired.
    let later = now + time::Duration::days(400);
    assert_eq!(
        generate::ensure(&dir.0, &names, later).unwrap().1,
        Outcome::Reissued
    );
    assert_eq!(std::fs::read(&files.ca_cert).unwrap(), ca);
    // A name it must serve and does not hold.
    let mut more = names.clone();
    more.push("10.9.8.7".to_string());
    assert_eq!(
        generate::ensure(&dir.0, &more, later).unwrap().1,
        Outcome::Reissued
    );
    assert_eq!(
        generate::ensure(&dir.0, &more, later).unwrap().1,
        Outcome::Reused
    );
    // Past the CA's ten years, everything is new.
    let much_later = now + time::Duration::days(3660);
    assert_eq!(
        generate::ensure(&dir.0, &more, much_later).unwrap().1,
        Outcome::Created
    );
    assert_ne!(std::fs::read(&files.ca_cert).unwrap(), ca);
    // A listen on every address names only the usual ones.
    assert_eq!(
        generate::serving_names("0.0.0.0".parse().unwrap(), &["hush.example".into()]),
        ["localhost", "127.0.0.1", "::1", "hush.example"]
    );
}
