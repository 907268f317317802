//! What stops the start, and what only warns: a non-loopback listen
//! without TLS and an authenticator (unless `--allow-anonymous`), a
//! client CA without TLS, token and policy files the API server would
//! refuse, a kubeconfig without a credential to put in it; anonymous
//! access turned off next to an allow-everything authorizer.

mod auth_support;

use auth_support::{Ca, TempDir, TestServer};
use hush_server::auth::{AuthConfig, SecurityConfig, check_exposure};
use hush_server::tls::TlsConfig;

fn tls(dir: &TempDir) -> TlsConfig {
    let ca = Ca::new("startup-ca");
    let (cert, key) = ca.server().write(dir, "server");
    TlsConfig {
        cert_file: Some(cert),
        key_file: Some(key),
        ..TlsConfig::default()
    }
}

#[test]
fn a_non_loopback_listen_needs_tls_and_an_authenticator() {
    let dir = TempDir::new("startup-exposure");
    let open = SecurityConfig::default();
    let err = match TestServer::try_start(&open, "0.0.0.0:0") {
        Err(e) => e,
        Ok(_) => panic!("an open server on every address started"),
    };
    assert!(err.starts_with("refusing to serve 0.0.0.0:"), "{err}");
    for flag in [
        "--tls-cert-file",
        "--tls-private-key-file",
        "--cert-dir",
        "--token-auth-file",
        "--client-ca-file",
        "--allow-anonymous",
    ] {
        assert!(err.contains(flag), "{flag} in {err}");
    }
    // TLS alone is not enough, nor a token file alone.
    let tls_only = SecurityConfig {
        tls: tls(&dir),
        ..SecurityConfig::default()
    };
    let err = check_exposure("10.1.2.3:6443".parse().unwrap(), &tls_only).unwrap_err();
    assert!(
        err.contains("without an authenticator (--token-auth-file or --client-ca-file)"),
        "{err}"
    );
    let tokens = AuthConfig {
        token_auth_file: Some(dir.write("tokens.csv", "t,alice,1\n")),
        ..AuthConfig::default()
    };
    let tokens_only = SecurityConfig {
        auth: tokens.clone(),
        ..SecurityConfig::default()
    };
    let err = check_exposure("[::]:6443".parse().unwrap(), &tokens_only).unwrap_err();
    assert!(
        err.contains("without TLS (--tls-cert-file and --tls-private-key-file, or --cert-dir)"),
        "{err}"
    );
    // Both: it starts on every address.
    let protected = SecurityConfig {
        tls: tls(&dir),
        auth: tokens,
        ..SecurityConfig::default()
    };
    assert!(TestServer::try_start(&protected, "0.0.0.0:0").is_ok());
    // Loopback stays open, on either family.
    assert_eq!(
        check_exposure("127.0.0.1:8080".parse().unwrap(), &open),
        Ok(vec![])
    );
    assert_eq!(
        check_exposure("[::1]:8080".parse().unwrap(), &open),
        Ok(vec![])
    );
}

#[test]
fn allow_anonymous_insists_with_a_warning() {
    let config = SecurityConfig {
        auth: AuthConfig {
            allow_anonymous: true,
            ..AuthConfig::default()
        },
        ..SecurityConfig::default()
    };
    let server = TestServer::try_start(&config, "0.0.0.0:0").unwrap();
    assert_eq!(server.security.warnings.len(), 1);
    assert!(
        server.security.warnings[0].contains("(--allow-anonymous)"),
        "{:?}",
        server.security.warnings
    );
}

#[test]
fn files_the_api_server_refuses_stop_the_start() {
    let dir = TempDir::new("startup-files");
    let with_auth = |auth: AuthConfig| SecurityConfig {
        tls: tls(&dir),
        auth,
        ..SecurityConfig::default()
    };
    let err = TestServer::try_start(
        &with_auth(AuthConfig {
            token_auth_file: Some(dir.write("short.csv", "t,alice\n")),
            ..AuthConfig::default()
        }),
        "127.0.0.1:0",
    )
    .err()
    .unwrap();
    assert!(
        err.ends_with("must have at least 3 columns (token, user name, user uid), found 2"),
        "{err}"
    );
    let err = TestServer::try_start(
        &with_auth(AuthConfig {
            token_auth_file: Some(dir.write("t.csv", "t,alice,1\n")),
            authorization_policy_file: Some(dir.write("p.jsonl", "{\"user\":\n")),
            ..AuthConfig::default()
        }),
        "127.0.0.1:0",
    )
    .err()
    .unwrap();
    assert!(err.starts_with("error reading policy file "), "{err}");
    let ca_without_tls = SecurityConfig {
        tls: TlsConfig {
            client_ca_file: Some(dir.write("ca.crt", &Ca::new("c").cert_pem)),
            ..TlsConfig::default()
        },
        ..SecurityConfig::default()
    };
    let err = TestServer::try_start(&ca_without_tls, "127.0.0.1:0")
        .err()
        .unwrap();
    assert!(err.starts_with("--client-ca-file needs TLS"), "{err}");
    let half = SecurityConfig {
        tls: TlsConfig {
            cert_file: tls(&dir).cert_file,
            ..TlsConfig::default()
        },
        ..SecurityConfig::default()
    };
    let err = TestServer::try_start(&half, "127.0.0.1:0").err().unwrap();
    assert!(err.contains("give both"), "{err}");
    // A kubeconfig needs a credential hushd has.
    let no_credential = SecurityConfig {
        tls: TlsConfig {
            client_ca_file: Some(dir.write("clients.crt", &Ca::new("c").cert_pem)),
            ..tls(&dir)
        },
        write_kubeconfig: Some(dir.path("kubeconfig")),
        ..SecurityConfig::default()
    };
    let err = TestServer::try_start(&no_credential, "127.0.0.1:0")
        .err()
        .unwrap();
    assert!(err.starts_with("--write-kubeconfig needs a token"), "{err}");
}

#[test]
fn anonymous_access_is_turned_off_when_every_request_would_be_allowed() {
    let dir = TempDir::new("startup-always-allow");
    let config = SecurityConfig {
        tls: tls(&dir),
        auth: AuthConfig {
            token_auth_file: Some(dir.write("t.csv", "t,alice,1\n")),
            allow_anonymous: true,
            ..AuthConfig::default()
        },
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    assert!(
        server
            .security
            .warnings
            .iter()
            .any(|w| w.starts_with("AnonymousAuth is not allowed with the AlwaysAllow authorizer")),
        "{:?}",
        server.security.warnings
    );
    assert!(!server.security.auth.auth().authenticator.anonymous);
}
