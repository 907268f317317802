//! One request's context: recognises an Event create, correlates it when
//! its body has arrived, and carries out the decision (the request passed
//! on, rewritten into the write client-go would make, or answered here),
//! then reads the API server's answer back into the recorder.

use hush_core::format::kube_json::Observation;
use hush_core::{Action, Event, WriteOp};
use log::warn;
use proxy_wasm::traits::{Context, HttpContext};
use proxy_wasm::types::Action as Next;

use crate::reply::{self, Answer};
use crate::route::{Api, Route};
use crate::state::Shared;

/// Longest Event body correlated (as hushd's input limit); longer ones pass.
const MAX_BODY: usize = 2 * 1024 * 1024;

/// The write a request carries to the API server.
struct Carried {
    /// The event written (for the state update).
    sent: Event,
    /// Whether it is a patch (a 404 then means: create it).
    patch: bool,
    /// The answer's status, once its headers have come.
    status: Option<u16>,
}

/// The context of one request.
pub(crate) struct Request {
    state: Option<Shared>,
    route: Route,
    carried: Option<Carried>,
    /// The create sent after a 404 to a rewritten patch, whose answer is
    /// the client's.
    fallback: Option<u32>,
    /// Calls this context sent that are not answered yet.
    calls: usize,
    /// The host is done with the request but calls are outstanding.
    done_pending: bool,
}

impl Request {
    pub(crate) fn new(state: Option<Shared>) -> Self {
        Request {
            state,
            route: Route::Other,
            carried: None,
            fallback: None,
            calls: 0,
            done_pending: false,
        }
    }

    fn answer(&self, answer: &Answer) {
        let headers = answer
            .headers
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        self.send_http_response(answer.status, headers, Some(&answer.body));
    }

    /// Correlates the request's Event and carries out the decision.
    fn correlate(&mut self, state: &Shared, api: Api, body: &[u8]) -> Next {
        let event = match serde_json::from_slice::<Observation>(body) {
            Ok(observation) => observation.event,
            Err(e) => {
                state.borrow().metrics.bad_requests.increment();
                warn!("hush: an Event create whose body is not an Event, passed on untouched: {e}");
                return Next::Continue;
            }
        };
        let sent_before = state.borrow().calls_sent();
        let decision = state.borrow_mut().observe(event.clone());
        self.calls += (state.borrow().calls_sent() - sent_before) as usize;
        let hush = state.borrow();
        let mode = hush.config.options.mode;
        let Some(written) = decision.event else {
            return Next::Continue;
        };
        match decision.action {
            Action::Create | Action::Patch => {
                let patch = decision.patch.clone();
                let op = match patch {
                    Some(patch) => WriteOp::Patch {
                        event: *written,
                        patch,
                    },
                    None => WriteOp::Create(*written),
                };
                let untouched =
                    matches!(op, WriteOp::Create(ref e) if *e == event) && api == Api::of(mode);
                if !untouched {
                    self.rewrite(&reply::request(mode, &op), body.len());
                }
                self.carried = Some(Carried {
                    patch: matches!(op, WriteOp::Patch { .. }),
                    sent: match op {
                        WriteOp::Create(e) | WriteOp::Patch { event: e, .. } => e,
                    },
                    status: None,
                });
                drop(hush);
                state.borrow_mut().forwarding();
                Next::Continue
            }
            Action::Drop => {
                let why = decision.why.as_ref().expect("a drop says why");
                self.answer(&reply::too_many_requests(
                    &written,
                    why,
                    &hush.config.options,
                ));
                Next::Pause
            }
            Action::Absorb => {
                self.answer(&reply::absorbed(mode, &written));
                Next::Pause
            }
            // The API server decides about an event hush would refuse.
            Action::Refuse | Action::Trap => Next::Continue,
        }
    }

    /// Makes the request `request`: method, path, body (replacing the
    /// `body_size` bytes that came) and its headers.
    fn rewrite(&self, request: &reply::Request, body_size: usize) {
        self.set_http_request_header(":method", Some(request.method));
        self.set_http_request_header(":path", Some(&request.path));
        self.set_http_request_header("content-type", Some(request.content_type));
        if self.get_http_request_header("content-length").is_some() {
            self.set_http_request_header("content-length", Some(&request.body.len().to_string()));
        }
        self.set_http_request_body(0, body_size, &request.body);
    }

    fn call_finished(&mut self) {
        self.calls = self.calls.saturating_sub(1);
        if self.calls == 0 && self.done_pending {
            self.done();
        }
    }
}

/// The status and body of a call's answer (no status: the call failed).
pub(crate) fn call_answer(
    context: &dyn Context,
    headers: usize,
    body_size: usize,
) -> (Option<u16>, Vec<u8>) {
    let status = (headers > 0)
        .then(|| context.get_http_call_response_header(":status"))
        .flatten()
        .and_then(|s| s.parse().ok());
    let body = context
        .get_http_call_response_body(0, body_size)
        .unwrap_or_default();
    (status, body)
}

impl Context for Request {
    fn on_http_call_response(&mut self, token: u32, headers: usize, body_size: usize, _: usize) {
        let (status, body) = call_answer(self, headers, body_size);
        if let Some(state) = &self.state {
            state.borrow_mut().call_answered(token, status, &body);
        }
        if self.fallback == Some(token) {
            // The create client-go makes after a 404: its answer is the client's.
            self.fallback = None;
            self.send_http_response(
                u32::from(status.unwrap_or(503)),
                vec![("content-type", "application/json")],
                Some(&body),
            );
        }
        self.call_finished();
    }

    fn on_done(&mut self) -> bool {
        // Answers to calls sent from this context still have to come back.
        self.done_pending = self.calls > 0;
        !self.done_pending
    }
}

impl HttpContext for Request {
    fn on_log(&mut self) {
        // The stream ended before the API server answered its write (a
        // reset): the write's fate is unknown.
        if let (Some(state), Some(carried)) = (&self.state, self.carried.take()) {
            state
                .borrow_mut()
                .forward_answered(&carried.sent, None, b"");
        }
    }

    fn on_http_request_headers(&mut self, _: usize, end_of_stream: bool) -> Next {
        let Some(state) = &self.state else {
            return Next::Continue;
        };
        let method = self.get_http_request_header(":method").unwrap_or_default();
        let path = self.get_http_request_header(":path").unwrap_or_default();
        self.route = Route::of(&method, &path);
        match self.route {
            // Held until the body has come: correlating it may rewrite them.
            Route::Create { .. } if !end_of_stream => Next::Pause,
            Route::Patch { .. } => {
                state.borrow().metrics.passed_patches.increment();
                Next::Continue
            }
            _ => Next::Continue,
        }
    }

    fn on_http_request_body(&mut self, body_size: usize, end_of_stream: bool) -> Next {
        let (Some(state), Route::Create { api, .. }) = (self.state.clone(), &self.route) else {
            return Next::Continue;
        };
        let api = *api;
        if !end_of_stream {
            return Next::Pause;
        }
        if body_size > MAX_BODY {
            state.borrow().metrics.bad_requests.increment();
            warn!(
                "hush: an Event create of {body_size} bytes, over the 2 MiB limit, passed on untouched"
            );
            return Next::Continue;
        }
        let body = self.get_http_request_body(0, body_size).unwrap_or_default();
        self.correlate(&state, api, &body)
    }

    fn on_http_response_headers(&mut self, _: usize, end_of_stream: bool) -> Next {
        let status = self
            .get_http_response_header(":status")
            .and_then(|s| s.parse().ok());
        let (Some(state), Some(carried)) = (self.state.clone(), self.carried.as_mut()) else {
            return Next::Continue;
        };
        carried.status = status;
        if status == Some(404) && carried.patch {
            // The event is gone: client-go creates it, resource version cleared.
            let mut event = carried.sent.clone();
            event.metadata.resource_version.clear();
            self.carried = None;
            let mut hush = state.borrow_mut();
            hush.forward_replaced();
            let before = hush.calls_sent();
            hush.send(&WriteOp::Create(event));
            if hush.calls_sent() > before {
                self.calls += 1;
                self.fallback = hush.last_call();
                return Next::Pause;
            }
            return Next::Continue;
        }
        if end_of_stream {
            let carried = self.carried.take();
            if let Some(carried) = carried {
                state
                    .borrow_mut()
                    .forward_answered(&carried.sent, status, b"");
            }
        }
        Next::Continue
    }

    fn on_http_response_body(&mut self, body_size: usize, end_of_stream: bool) -> Next {
        if self.carried.is_none() {
            return Next::Continue;
        }
        if !end_of_stream {
            return Next::Pause;
        }
        let body = self
            .get_http_response_body(0, body_size)
            .unwrap_or_default();
        if let (Some(state), Some(carried)) = (&self.state, self.carried.take()) {
            state
                .borrow_mut()
                .forward_answered(&carried.sent, carried.status, &body);
        }
        Next::Continue
    }
}
