//! The dashboard (`www/`) served at `/` by `hushd serve`: the
//! files of `www/dist`, embedded in the binary when it was built after
//! `scripts/build-www.sh` (see `build.rs`). Without them `/` answers a page
//! saying how to build them; any other path the API does not serve gets
//! the API's 404 Status.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::api::App;
use crate::api::not_found;

// `FILES`: (path under www/dist, content type, bytes), written by build.rs.
include!(concat!(env!("OUT_DIR"), "/dashboard.rs"));

/// The page `/` answers when hushd was built without the dashboard.
const NOT_BUILT: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
<title>hush · dashboard not built</title>\
<body style=\"font:15px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em\">\
<h1>The dashboard is not in this hushd</h1>\
<p>This <code>hushd serve</code> answers the Kubernetes events API (try \
<code>kubectl --server http://&lt;this address&gt; get events -A</code>), but it was built \
before the dashboard's files existed.</p>\
<p>Build them, then hushd again:</p>\
<pre>scripts/build-www.sh\ncargo build --release -p hushd</pre>\
<p>The dashboard also works from any static file server: \
<code>python3 -m http.server -d www/dist</code>.</p></body></html>";

/// Whether this hushd carries the dashboard's files.
pub fn embedded() -> bool {
    !FILES.is_empty()
}

/// The paths anyone may `get` without credentials: the page and its
/// files, which must load for the page to ask for a token (the API it
/// reads needs one), and the source maps a browser's tools ask for.
pub fn public_paths() -> Vec<String> {
    let mut paths = vec!["/".to_string(), "/index.html".to_string()];
    for (name, _, _) in FILES {
        paths.push(format!("/{name}"));
        if name.ends_with(".js") || name.ends_with(".css") {
            paths.push(format!("/{name}.map"));
        }
    }
    paths
}

/// The file at `path` (`/` is `index.html`): its content type and bytes.
pub fn file(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    FILES
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|(_, content_type, bytes)| (*content_type, *bytes))
}

/// The router serve falls back to for every path its API does not answer.
pub fn router() -> Router<Arc<App>> {
    Router::new().fallback(serve)
}

async fn serve(uri: Uri) -> Response {
    if let Some((content_type, bytes)) = file(uri.path()) {
        // index.html names the other files, which keep their names across
        // builds: let browsers revalidate rather than cache blindly.
        return (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ),
            ],
            bytes,
        )
            .into_response();
    }
    if !embedded() && matches!(uri.path(), "/" | "/index.html") {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            NOT_BUILT,
        )
            .into_response();
    }
    not_found().await
}
