//! What a protected `hushd serve` gives without credentials: the
//! dashboard's page and every file it loads (it must load to ask for a
//! token), health and `/version` (kube-apiserver's
//! `system:public-info-viewer`); not the API it reads, discovery or
//! `/metrics`. A wrong token is refused everywhere, as the API server
//! refuses it.

mod auth_support;
mod security_support;

use auth_support::{TempDir, curl};
use security_support::Hushd;

#[test]
fn the_dashboard_loads_without_a_token_and_its_data_needs_one() {
    let dir = TempDir::new("security-public");
    let tokens = dir.write("tokens.csv", "s3cr3t,alice,1001\n");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--token-auth-file",
            tokens.to_str().unwrap(),
        ],
    );
    let get = |path: &str, token: Option<&str>| {
        let url = format!("{}{path}", server.url);
        match token {
            Some(token) => curl(&["-H", &format!("Authorization: Bearer {token}"), &url]),
            None => curl(&[&url]),
        }
    };
    let page = get("/", None);
    assert_eq!(page.code, 200, "{page:?}");
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    // Every file the page names (when hushd was built with the dashboard).
    let mut files = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for part in page.body.split(attribute).skip(1) {
            let path = part.split('"').next().unwrap();
            if !path.starts_with("http") && !path.starts_with('#') {
                files.push(format!(
                    "/{}",
                    path.trim_start_matches("./").trim_start_matches('/')
                ));
            }
        }
    }
    for file in &files {
        let got = get(file, None);
        assert_eq!(got.code, 200, "{file}: {got:?}");
    }
    if page.body.contains("app.js") {
        for file in ["/worker.js", "/hush_web_bg.wasm", "/samples/storm.jsonl"] {
            assert_eq!(get(file, None).code, 200, "{file}");
        }
    }
    for public in ["/index.html", "/healthz", "/livez", "/readyz", "/version"] {
        assert_eq!(get(public, None).code, 200, "{public}");
    }
    for protected in [
        "/api/v1/events?limit=500",
        "/api/v1/namespaces/shop/events",
        "/apis/events.k8s.io/v1/events",
        "/api",
        "/apis",
        "/metrics",
        "/anything/else",
    ] {
        let got = get(protected, None);
        assert_eq!(got.code, 401, "{protected}: {got:?}");
        assert_eq!(got.json()["reason"], "Unauthorized");
        assert_eq!(
            get(protected, Some("s3cr3t")).code,
            if protected == "/anything/else" {
                404
            } else {
                200
            },
            "{protected}"
        );
    }
    // A wrong token is a 401 on the public paths too.
    for path in ["/", "/healthz"] {
        assert_eq!(get(path, Some("wr0ng")).code, 401, "{path}");
    }
}
