//! The hostcalls of proxy-wasm ABI 0.2.1, as the spec defines them, over a
//! wasmtime core-module linker: [`link`] defines every function the hush
//! plugin imports (and `proxy_get_metric`, `proxy_get_log_level`). Each
//! returns a `proxy_status_t`; a pointer outside the guest's memory is
//! `INVALID_MEMORY_ACCESS`, not a trap. Values go back to the guest in
//! memory it allocates (`proxy_on_memory_allocate`, else `malloc`).

mod http;
mod vm;

use wasmtime::{Caller, Extern, Linker};

use crate::abi::status;
use crate::state::HostState;

/// Why a hostcall ends other than with `OK`.
pub(crate) enum Fail {
    /// A `proxy_status_t` for the guest.
    Status(i32),
    /// A trap (in the guest's allocator), passed on.
    Trap(wasmtime::Error),
}

impl From<wasmtime::Error> for Fail {
    fn from(e: wasmtime::Error) -> Self {
        Fail::Trap(e)
    }
}

/// A hostcall's body's result.
pub(crate) type Done = Result<(), Fail>;

/// Fails with `status`.
pub(crate) fn fail<T>(status: i32) -> Result<T, Fail> {
    Err(Fail::Status(status))
}

/// The status a hostcall returns for `done`.
pub(crate) fn status_of(done: Done) -> wasmtime::Result<i32> {
    match done {
        Ok(()) => Ok(status::OK),
        Err(Fail::Status(s)) => Ok(s),
        Err(Fail::Trap(e)) => Err(e),
    }
}

/// The guest's memory, seen from a hostcall.
pub(crate) struct Guest<'a, 'c> {
    pub(crate) caller: &'a mut Caller<'c, HostState>,
}

impl Guest<'_, '_> {
    fn memory(&mut self) -> Result<wasmtime::Memory, Fail> {
        match self.caller.get_export("memory") {
            Some(Extern::Memory(memory)) => Ok(memory),
            _ => fail(status::INVALID_MEMORY_ACCESS),
        }
    }

    /// `len` bytes at `ptr`.
    pub(crate) fn read(&mut self, ptr: i32, len: i32) -> Result<Vec<u8>, Fail> {
        let memory = self.memory()?;
        let (ptr, len) = (ptr as u32 as usize, len as u32 as usize);
        let end = ptr.checked_add(len);
        match end.and_then(|end| memory.data(&*self.caller).get(ptr..end)) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => fail(status::INVALID_MEMORY_ACCESS),
        }
    }

    /// `len` bytes at `ptr`, as text.
    pub(crate) fn read_str(&mut self, ptr: i32, len: i32) -> Result<String, Fail> {
        let bytes = self.read(ptr, len)?;
        String::from_utf8(bytes).or_else(|_| fail(status::BAD_ARGUMENT))
    }

    /// Writes `bytes` at `ptr`.
    pub(crate) fn write(&mut self, ptr: i32, bytes: &[u8]) -> Done {
        let memory = self.memory()?;
        let ptr = ptr as u32 as usize;
        let end = ptr.checked_add(bytes.len());
        match end.and_then(|end| memory.data_mut(&mut *self.caller).get_mut(ptr..end)) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                Ok(())
            }
            None => fail(status::INVALID_MEMORY_ACCESS),
        }
    }

    /// Writes a 32-bit integer at `ptr`.
    pub(crate) fn write_u32(&mut self, ptr: i32, value: u32) -> Done {
        self.write(ptr, &value.to_le_bytes())
    }

    /// Writes a 64-bit integer at `ptr`.
    pub(crate) fn write_u64(&mut self, ptr: i32, value: u64) -> Done {
        self.write(ptr, &value.to_le_bytes())
    }

    /// Copies `bytes` into memory the guest allocates, and writes where
    /// and how long at `ret_data` and `ret_size` (no bytes: a null pointer).
    pub(crate) fn give(&mut self, bytes: &[u8], ret_data: i32, ret_size: i32) -> Done {
        let len = u32::try_from(bytes.len()).or_else(|_| fail(status::INTERNAL_FAILURE))?;
        let ptr = if bytes.is_empty() {
            0
        } else {
            let ptr = self.allocate(len)?;
            self.write(ptr as i32, bytes)?;
            ptr
        };
        self.write_u32(ret_data, ptr)?;
        self.write_u32(ret_size, len)
    }

    fn allocate(&mut self, len: u32) -> Result<u32, Fail> {
        let allocator = ["proxy_on_memory_allocate", "malloc"]
            .into_iter()
            .find_map(|name| self.caller.get_export(name)?.into_func());
        let Some(allocator) = allocator else {
            return fail(status::INTERNAL_FAILURE);
        };
        let allocator = allocator.typed::<i32, i32>(&*self.caller)?;
        match allocator.call(&mut *self.caller, len as i32)? {
            0 => fail(status::INTERNAL_FAILURE),
            ptr => Ok(ptr as u32),
        }
    }
}

/// Defines the hostcalls in `linker` (module `env`).
pub fn link(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    vm::link(linker)?;
    http::link(linker)
}
