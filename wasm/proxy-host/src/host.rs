//! The driver: loads a plugin, runs the context lifecycle of ABI 0.2.1
//! (`_initialize`, the root context, `proxy_on_vm_start`,
//! `proxy_on_configure`; per request a context through its request and
//! response callbacks to `proxy_on_done`, `proxy_on_log` and
//! `proxy_on_delete`), forwards requests to an [`Upstream`], delivers the
//! answers to the plugin's calls after the callback that sent them, and
//! fires `proxy_on_tick`.

use wasmtime::{Engine, Instance, Linker, Module, Store, TypedFunc};

use crate::abi::action;
use crate::hostcalls;
use crate::state::{HostState, HttpMessage, LocalResponse, LogEntry, Phase, Stream};

/// Where requests go on: the API server, in tests an in-memory one.
pub trait Upstream {
    /// The answer to `request` from `cluster`; None: no answer (a reset, a
    /// timeout).
    fn call(&mut self, cluster: &str, request: &HttpMessage) -> Option<HttpMessage>;
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The request as it reached the upstream, if it did.
    pub forwarded: Option<HttpMessage>,
    /// What the client got (None: the stream was reset or stalled).
    pub response: Option<HttpMessage>,
    /// The plugin answered itself.
    pub local: Option<LocalResponse>,
}

/// Why the host could not run the plugin.
#[derive(Debug)]
pub enum HostError {
    /// Loading, linking or a trap.
    Wasm(wasmtime::Error),
    /// `proxy_on_vm_start` or `proxy_on_configure` returned false; what
    /// the plugin logged says why.
    Rejected {
        /// Which configuration.
        what: &'static str,
        /// The plugin's log.
        logs: Vec<LogEntry>,
    },
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Wasm(e) => write!(f, "{e:#}"),
            HostError::Rejected { what, logs } => {
                write!(f, "the plugin rejected its {what}")?;
                for log in logs {
                    write!(f, "; {}", log.message)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for HostError {}

impl From<wasmtime::Error> for HostError {
    fn from(e: wasmtime::Error) -> Self {
        HostError::Wasm(e)
    }
}

type Cb1 = TypedFunc<i32, ()>;
type Cb2 = TypedFunc<(i32, i32), i32>;
type Cb3 = TypedFunc<(i32, i32, i32), i32>;

/// The plugin's callbacks (every one the hush plugin exports).
struct Callbacks {
    context_create: TypedFunc<(i32, i32), ()>,
    vm_start: Cb2,
    configure: Cb2,
    request_headers: Cb3,
    request_body: Cb3,
    response_headers: Cb3,
    response_body: Cb3,
    http_call_response: TypedFunc<(i32, i32, i32, i32, i32), ()>,
    queue_ready: TypedFunc<(i32, i32), ()>,
    tick: Cb1,
    done: TypedFunc<i32, i32>,
    log: Cb1,
    delete: Cb1,
}

/// One VM of a plugin, with its root context configured.
pub struct ProxyHost {
    store: Store<HostState>,
    callbacks: Callbacks,
    root: u32,
    last_context: u32,
    next_tick: Option<u64>,
}

/// Compiles a plugin module.
pub fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Module> {
    Module::new(engine, wasm)
}

impl ProxyHost {
    /// Starts a VM of `module` with its VM and plugin configuration at
    /// `now` (nanoseconds), calls to `clusters` allowed.
    pub fn start(
        engine: &Engine,
        module: &Module,
        vm_configuration: &[u8],
        plugin_configuration: &[u8],
        clusters: &[&str],
        now: u64,
    ) -> Result<ProxyHost, HostError> {
        let mut linker = Linker::new(engine);
        hostcalls::link(&mut linker)?;
        let state = HostState {
            now,
            vm_configuration: vm_configuration.to_vec(),
            plugin_configuration: plugin_configuration.to_vec(),
            clusters: clusters.iter().map(|c| c.to_string()).collect(),
            properties: [
                ("plugin_name", "hush"),
                ("plugin_root_id", ""),
                ("plugin_vm_id", ""),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect(),
            ..HostState::default()
        };
        let mut store = Store::new(engine, state);
        let instance = linker.instantiate(&mut store, module)?;
        // A reactor is initialised; a command (no `_initialize`) is started.
        if let Ok(init) = instance.get_typed_func::<(), ()>(&mut store, "_initialize") {
            init.call(&mut store, ())?;
            if let Ok(main) = instance.get_typed_func::<(i32, i32), i32>(&mut store, "main") {
                main.call(&mut store, (0, 0))?;
            }
        } else if let Ok(start) = instance.get_typed_func::<(), ()>(&mut store, "_start") {
            start.call(&mut store, ())?;
        }
        let callbacks = Callbacks::of(&instance, &mut store)?;
        let mut host = ProxyHost {
            store,
            callbacks,
            root: 1,
            last_context: 1,
            next_tick: None,
        };
        host.create_context(1, 0)?;
        let size = vm_configuration.len() as i32;
        if host.in_phase(Phase::VmStart, |h| {
            h.callbacks.vm_start.call(&mut h.store, (1, size))
        })? == 0
        {
            let logs = std::mem::take(&mut host.state().logs);
            return Err(HostError::Rejected {
                what: "VM configuration",
                logs,
            });
        }
        let size = plugin_configuration.len() as i32;
        if host.in_phase(Phase::Configure, |h| {
            h.callbacks.configure.call(&mut h.store, (1, size))
        })? == 0
        {
            let logs = std::mem::take(&mut host.state().logs);
            return Err(HostError::Rejected {
                what: "plugin configuration",
                logs,
            });
        }
        Ok(host)
    }

    fn in_phase<T>(
        &mut self,
        phase: Phase,
        f: impl FnOnce(&mut Self) -> wasmtime::Result<T>,
    ) -> wasmtime::Result<T> {
        self.store.data_mut().phase = phase;
        let result = f(self);
        self.store.data_mut().phase = Phase::Other;
        result
    }

    fn create_context(&mut self, id: u32, parent: u32) -> wasmtime::Result<()> {
        let state = self.store.data_mut();
        state.contexts.insert(id);
        state.effective_context = id;
        self.callbacks
            .context_create
            .call(&mut self.store, (id as i32, parent as i32))
    }

    /// The host's state: logs, metrics, configuration, clock.
    pub fn state(&mut self) -> &mut HostState {
        self.store.data_mut()
    }

    /// Moves the clock to `now`, firing `proxy_on_tick` at every tick
    /// period that passes (the plugin's calls answered by `upstream`).
    pub fn advance(&mut self, now: u64, upstream: &mut dyn Upstream) -> Result<(), HostError> {
        loop {
            let period = u64::from(self.store.data().tick_period_ms) * 1_000_000;
            if period == 0 {
                self.next_tick = None;
                break;
            }
            let due = *self.next_tick.get_or_insert(self.store.data().now + period);
            if due > now {
                break;
            }
            self.store.data_mut().now = due;
            self.next_tick = Some(due + period);
            self.store.data_mut().effective_context = self.root;
            self.callbacks
                .tick
                .call(&mut self.store, self.root as i32)?;
            self.deliver(upstream)?;
        }
        self.store.data_mut().now = now;
        Ok(())
    }

    /// Answers the plugin's calls (and tells it of queue items), oldest first.
    fn deliver(&mut self, upstream: &mut dyn Upstream) -> Result<(), HostError> {
        while let Some(call) = self.store.data_mut().calls.pop_front() {
            let answer = upstream.call(&call.upstream, &call.request);
            let (headers, body, trailers) = answer.as_ref().map_or((0, 0, 0), |a| {
                (a.headers.len(), a.body.len(), a.trailers.len())
            });
            let state = self.store.data_mut();
            state.call_response = answer;
            state.effective_context = call.context;
            let args = (
                call.context as i32,
                call.token as i32,
                headers as i32,
                body as i32,
                trailers as i32,
            );
            let result = self.in_phase(Phase::CallResponse, |h| {
                h.callbacks.http_call_response.call(&mut h.store, args)
            });
            self.store.data_mut().call_response = None;
            result?;
        }
        let ready = std::mem::take(&mut self.store.data_mut().queues_ready);
        for queue in ready {
            self.store.data_mut().effective_context = self.root;
            self.callbacks
                .queue_ready
                .call(&mut self.store, (self.root as i32, queue as i32))?;
        }
        Ok(())
    }

    /// Runs `request` through a new HTTP context: its headers, then its
    /// body (whole, in one chunk), forwarded to `upstream` unless the
    /// plugin answered, then the response's headers and body; then the
    /// context is done, logged and deleted.
    pub fn request(
        &mut self,
        request: HttpMessage,
        upstream: &mut dyn Upstream,
    ) -> Result<Exchange, HostError> {
        self.last_context += 1;
        let id = self.last_context;
        self.store.data_mut().streams.insert(
            id,
            Stream {
                request,
                ..Stream::default()
            },
        );
        self.create_context(id, self.root)?;
        let has_body = !self.stream(id).request.body.is_empty();
        let headers = self.stream(id).request.headers.len() as i32;
        let mut next = self.callback(id, upstream, |h| {
            h.callbacks
                .request_headers
                .call(&mut h.store, (id as i32, headers, i32::from(!has_body)))
        })?;
        if has_body && self.open(id) {
            let size = self.stream(id).request.body.len() as i32;
            next = self.callback(id, upstream, |h| {
                h.callbacks
                    .request_body
                    .call(&mut h.store, (id as i32, size, 1))
            })?;
        }
        let mut exchange = Exchange {
            forwarded: None,
            response: None,
            local: None,
        };
        if self.open(id) && (next == action::CONTINUE || self.stream(id).continued[0]) {
            let forwarded = self.stream(id).request.clone();
            // No answer: the proxy answers 503 itself, through the
            // response callbacks, as Envoy's router does.
            let answer = upstream
                .call("", &forwarded)
                .unwrap_or_else(|| HttpMessage {
                    headers: vec![(":status".into(), "503".into())],
                    body: b"upstream connect error or disconnect/reset before headers".to_vec(),
                    trailers: Vec::new(),
                });
            exchange.forwarded = Some(forwarded);
            self.respond(id, answer, upstream)?;
        }
        let stream = self
            .store
            .data_mut()
            .streams
            .get(&id)
            .cloned()
            .unwrap_or_default();
        exchange.local = stream.local.clone();
        exchange.response = match (stream.local, stream.closed) {
            (Some(local), _) => Some(local.response),
            (None, false) => stream.response,
            (None, true) => None,
        };
        self.finish(id, upstream)?;
        Ok(exchange)
    }

    /// Delivers the upstream's `answer` to the response callbacks.
    fn respond(
        &mut self,
        id: u32,
        answer: HttpMessage,
        upstream: &mut dyn Upstream,
    ) -> Result<(), HostError> {
        let has_body = !answer.body.is_empty();
        let headers = answer.headers.len() as i32;
        self.store
            .data_mut()
            .streams
            .get_mut(&id)
            .expect("the stream exists")
            .response = Some(answer);
        let next = self.callback(id, upstream, |h| {
            h.callbacks
                .response_headers
                .call(&mut h.store, (id as i32, headers, i32::from(!has_body)))
        })?;
        let paused = next == action::PAUSE && !self.stream(id).continued[1];
        if has_body && self.open(id) && !paused {
            let size = self
                .stream(id)
                .response
                .as_ref()
                .map_or(0, |r| r.body.len()) as i32;
            self.callback(id, upstream, |h| {
                h.callbacks
                    .response_body
                    .call(&mut h.store, (id as i32, size, 1))
            })?;
        }
        Ok(())
    }

    /// Ends context `id`: `proxy_on_done` (and, if it said "not yet", the
    /// plugin's `proxy_done`), `proxy_on_log`, `proxy_on_delete`.
    fn finish(&mut self, id: u32, upstream: &mut dyn Upstream) -> Result<(), HostError> {
        self.store.data_mut().effective_context = id;
        let done = self.callbacks.done.call(&mut self.store, id as i32)?;
        if done == 0 {
            self.store.data_mut().awaiting_done.insert(id);
            self.deliver(upstream)?;
            if !self.store.data_mut().done.remove(&id) {
                // Still waiting: the context stays until the plugin is done.
                return Ok(());
            }
        }
        self.store.data_mut().effective_context = id;
        self.callbacks.log.call(&mut self.store, id as i32)?;
        self.callbacks.delete.call(&mut self.store, id as i32)?;
        let state = self.store.data_mut();
        state.streams.remove(&id);
        state.contexts.remove(&id);
        Ok(())
    }

    fn callback(
        &mut self,
        id: u32,
        upstream: &mut dyn Upstream,
        f: impl FnOnce(&mut Self) -> wasmtime::Result<i32>,
    ) -> Result<i32, HostError> {
        self.store.data_mut().effective_context = id;
        let next = f(self)?;
        self.deliver(upstream)?;
        Ok(next)
    }

    fn stream(&mut self, id: u32) -> &Stream {
        self.store
            .data_mut()
            .streams
            .get(&id)
            .expect("the stream exists")
    }

    /// Whether the stream still goes on (no local answer, not closed).
    fn open(&mut self, id: u32) -> bool {
        let stream = self.stream(id);
        stream.local.is_none() && !stream.closed
    }
}

impl Callbacks {
    fn of(instance: &Instance, store: &mut Store<HostState>) -> wasmtime::Result<Callbacks> {
        Ok(Callbacks {
            context_create: instance.get_typed_func(&mut *store, "proxy_on_context_create")?,
            vm_start: instance.get_typed_func(&mut *store, "proxy_on_vm_start")?,
            configure: instance.get_typed_func(&mut *store, "proxy_on_configure")?,
            request_headers: instance.get_typed_func(&mut *store, "proxy_on_request_headers")?,
            request_body: instance.get_typed_func(&mut *store, "proxy_on_request_body")?,
            response_headers: instance.get_typed_func(&mut *store, "proxy_on_response_headers")?,
            response_body: instance.get_typed_func(&mut *store, "proxy_on_response_body")?,
            http_call_response: instance
                .get_typed_func(&mut *store, "proxy_on_http_call_response")?,
            queue_ready: instance.get_typed_func(&mut *store, "proxy_on_queue_ready")?,
            tick: instance.get_typed_func(&mut *store, "proxy_on_tick")?,
            done: instance.get_typed_func(&mut *store, "proxy_on_done")?,
            log: instance.get_typed_func(&mut *store, "proxy_on_log")?,
            delete: instance.get_typed_func(&mut *store, "proxy_on_delete")?,
        })
    }
}
