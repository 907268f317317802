//! The auth middleware: a tower [`Layer`] that authenticates each
//! request (a request without credentials for a public path is
//! anonymous), derives its [`RequestInfo`], authorizes it, and either
//! answers 401 or 403 itself (counted) or passes it on with the user and
//! the request info in its extensions (the `Authorization` header of a
//! token request removed). The response carries an [`AuthOutcome`] in
//! its extensions, which the audit layer reads.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, header};
use tower::{Layer, Service};

use super::authenticator::{Authenticated, Authenticator, Failure};
use super::authorizer::Authorizer;
use super::metrics::AuthMetrics;
use super::request_info::RequestInfo;
use super::status;
use super::user::UserInfo;
use crate::tls::ConnectionInfo;

/// What the auth layer decided about a request, in the response's
/// extensions (for the audit log).
#[derive(Clone, Debug)]
pub struct AuthOutcome {
    /// The request's attributes.
    pub request: RequestInfo,
    /// The user; `None` when authentication failed (401).
    pub user: Option<UserInfo>,
    /// The authorization decision: `Ok` allowed, `Err(reason)` forbidden;
    /// `None` when it never got that far.
    pub decision: Option<Result<(), String>>,
}

/// Authentication and authorization, shared by every request.
#[derive(Debug)]
pub struct Auth {
    /// Who the request is from.
    pub authenticator: Authenticator,
    /// What they may do.
    pub authorizer: Authorizer,
    /// Denials counted.
    pub metrics: AuthMetrics,
}

/// The tower layer.
#[derive(Clone, Debug)]
pub struct AuthLayer(Arc<Auth>);

impl AuthLayer {
    /// A layer deciding with `auth`.
    pub fn new(auth: Auth) -> AuthLayer {
        AuthLayer(Arc::new(auth))
    }

    /// The shared state (its metrics, for registration).
    pub fn auth(&self) -> &Auth {
        &self.0
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        AuthService {
            inner,
            auth: self.0.clone(),
        }
    }
}

/// The service the layer wraps around the router.
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    inner: S,
    auth: Arc<Auth>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A request that may go on: its user, what the audit log gets, and a
/// warning for the client.
struct Passed {
    user: UserInfo,
    outcome: AuthOutcome,
    warning: Option<&'static str>,
}

impl Auth {
    /// Decides about `request`: `Ok` with the user to pass it on, or the
    /// 401 or 403 answer.
    fn decide(&self, request: &mut Request<Body>) -> Result<Passed, Box<Response<Body>>> {
        let info = RequestInfo::new(
            request.method(),
            request.uri().path(),
            request.uri().query(),
        );
        let pretty = status::wants_pretty(request.headers(), request.uri().query());
        let outcome = self.authenticator.authenticate(
            request.headers(),
            request.extensions().get::<ConnectionInfo>(),
        );
        let warning = outcome.warning;
        let authenticated = match outcome.result {
            Ok(authenticated) => authenticated,
            // The public paths (health, /version, the dashboard's page) are
            // anonymous for a request without credentials; bad
            // credentials are a 401 there too.
            Err(Failure::NoCredentials) if self.authorizer.is_public(&info) => {
                Authenticated::Anonymous
            }
            Err(why) => {
                tracing::debug!(path = %info.path, "unauthorized: {why}");
                self.metrics.denied(401, "", &info.verb);
                let mut response = status::unauthorized(pretty);
                add_warning(&mut response, warning);
                response.extensions_mut().insert(AuthOutcome {
                    request: info,
                    user: None,
                    decision: None,
                });
                return Err(Box::new(response));
            }
        };
        if matches!(authenticated, Authenticated::Token(_)) {
            // Nothing after this layer needs (or may log) the token.
            request.headers_mut().remove(header::AUTHORIZATION);
        }
        let user = authenticated.user();
        let decision = self.authorizer.authorize(&user, &info);
        if let Err(reason) = &decision {
            self.metrics.denied(403, &user.name, &info.verb);
            let mut response = status::forbidden(&user.name, &info, reason, pretty);
            add_warning(&mut response, warning);
            response.extensions_mut().insert(AuthOutcome {
                request: info,
                user: Some(user),
                decision: Some(decision),
            });
            return Err(Box::new(response));
        }
        let outcome = AuthOutcome {
            request: info,
            user: Some(user.clone()),
            decision: Some(Ok(())),
        };
        Ok(Passed {
            user,
            outcome,
            warning,
        })
    }
}

/// Reads what is left of a refused request's body (at most 64 KiB, for
/// at most a second) before answering. Over HTTP/2 an unread body makes
/// the server reset the stream after its answer, which the protocol
/// allows but some clients (curl 7.88) report as a failed request without
/// showing the 401 or 403.
async fn drain(mut body: Body) {
    use http_body_util::BodyExt;
    let read = async {
        let mut left: usize = 64 * 1024;
        while let Some(Ok(frame)) = body.frame().await {
            let len = frame.data_ref().map_or(0, |d| d.len());
            match left.checked_sub(len) {
                Some(rest) => left = rest,
                None => break,
            }
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), read).await;
}

fn add_warning(response: &mut Response<Body>, warning: Option<&'static str>) {
    if let Some(text) = warning
        && let Ok(value) = HeaderValue::from_str(&format!("299 - \"{text}\""))
    {
        response.headers_mut().append(header::WARNING, value);
    }
}

impl<S> Service<Request<Body>> for AuthService<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let Passed {
            user,
            outcome,
            warning,
        } = match self.auth.decide(&mut request) {
            Ok(decided) => decided,
            Err(response) => {
                let body = std::mem::take(request.body_mut());
                return Box::pin(async move {
                    drain(body).await;
                    Ok(*response)
                });
            }
        };
        request.extensions_mut().insert(user);
        request.extensions_mut().insert(outcome.request.clone());
        // The clone that was made ready is the one that is called.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let mut response = inner.call(request).await?;
            add_warning(&mut response, warning);
            response.extensions_mut().insert(outcome);
            Ok(response)
        })
    }
}
