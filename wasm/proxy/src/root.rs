//! The root (plugin) context: reads the configuration, owns the shared
//! state, runs the series timers on the proxy's tick, and creates an HTTP
//! context per request.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use hush_core::Mode;
use log::{error, info};
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::ContextType;

use crate::config::Config;
use crate::http::Request;
use crate::state::{Hush, Shared};

/// How often the series timers are checked (they fall on whole seconds).
const TICK: Duration = Duration::from_secs(1);

/// The plugin context.
#[derive(Default)]
pub(crate) struct Root {
    state: Option<Shared>,
}

impl Context for Root {
    fn on_http_call_response(&mut self, token: u32, headers: usize, body_size: usize, _: usize) {
        if let Some(state) = &self.state {
            let (status, body) = crate::http::call_answer(self, headers, body_size);
            state.borrow_mut().call_answered(token, status, &body);
        }
    }
}

impl RootContext for Root {
    fn on_configure(&mut self, _size: usize) -> bool {
        let bytes = self.get_plugin_configuration().unwrap_or_default();
        match Config::parse(&bytes).and_then(Hush::new) {
            Ok(hush) => {
                let mode = hush.config.options.mode;
                info!("hush: correlating Event writes in {mode:?} mode");
                // Only series have timers (held writes never happen here:
                // the API server's answer goes back to the client).
                if mode == Mode::Series {
                    self.set_tick_period(TICK);
                }
                self.state = Some(Rc::new(RefCell::new(hush)));
                true
            }
            Err(e) => {
                error!("hush: the plugin configuration is not usable: {e}");
                false
            }
        }
    }

    fn on_tick(&mut self) {
        if let Some(state) = &self.state {
            state.borrow_mut().tick();
        }
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }

    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Request::new(self.state.clone())))
    }
}
