//! Hostcalls about the VM and its contexts: logging, the clock, the tick,
//! the effective context and `proxy_done`, metrics, shared data and
//! queues, properties, and the gRPC and foreign-function calls this host
//! has none of.

use std::collections::VecDeque;

use wasmtime::{Caller, Linker};

use super::{Done, Guest, fail, status_of};
use crate::abi::{LOG_LEVEL_LAST, MetricKind, status};
use crate::state::{HostState, LogEntry, Metric, Queue};

type C<'a> = Caller<'a, HostState>;

fn log(mut c: C<'_>, level: i32, ptr: i32, len: i32) -> Done {
    if !(0..=LOG_LEVEL_LAST).contains(&level) {
        return fail(status::BAD_ARGUMENT);
    }
    let message = String::from_utf8_lossy(&Guest { caller: &mut c }.read(ptr, len)?).into_owned();
    let state = c.data_mut();
    if level >= state.log_level {
        state.logs.push(LogEntry { level, message });
    }
    Ok(())
}

fn set_effective_context(mut c: C<'_>, context: i32) -> Done {
    let context = context as u32;
    if !c.data().contexts.contains(&context) {
        return fail(status::BAD_ARGUMENT);
    }
    c.data_mut().effective_context = context;
    Ok(())
}

fn done(mut c: C<'_>) -> Done {
    let state = c.data_mut();
    let context = state.effective_context;
    if !state.awaiting_done.remove(&context) {
        return fail(status::NOT_FOUND);
    }
    state.done.insert(context);
    Ok(())
}

fn define_metric(mut c: C<'_>, kind: i32, ptr: i32, len: i32, ret_id: i32) -> Done {
    let Some(kind) = MetricKind::of(kind) else {
        return fail(status::BAD_ARGUMENT);
    };
    let name = Guest { caller: &mut c }.read_str(ptr, len)?;
    let metrics = &mut c.data_mut().metrics;
    let index = match metrics.iter().position(|m| m.name == name) {
        Some(i) if metrics[i].kind == kind => i,
        Some(_) => return fail(status::BAD_ARGUMENT),
        None => {
            metrics.push(Metric {
                name,
                kind,
                value: 0,
            });
            metrics.len() - 1
        }
    };
    Guest { caller: &mut c }.write_u32(ret_id, index as u32 + 1)
}

fn metric<'a>(c: &'a mut C<'_>, id: i32) -> Result<&'a mut Metric, super::Fail> {
    match (id as u32).checked_sub(1) {
        Some(i) => match c.data_mut().metrics.get_mut(i as usize) {
            Some(m) => Ok(m),
            None => fail(status::NOT_FOUND),
        },
        None => fail(status::NOT_FOUND),
    }
}

fn record_metric(mut c: C<'_>, id: i32, value: i64) -> Done {
    metric(&mut c, id)?.value = value as u64;
    Ok(())
}

fn increment_metric(mut c: C<'_>, id: i32, delta: i64) -> Done {
    let metric = metric(&mut c, id)?;
    if metric.kind == MetricKind::Counter && delta < 0 {
        return fail(status::BAD_ARGUMENT);
    }
    metric.value = metric.value.wrapping_add_signed(delta);
    Ok(())
}

fn get_metric(mut c: C<'_>, id: i32, ret_value: i32) -> Done {
    let value = metric(&mut c, id)?.value;
    Guest { caller: &mut c }.write_u64(ret_value, value)
}

fn get_shared_data(
    mut c: C<'_>,
    ptr: i32,
    len: i32,
    ret_data: i32,
    ret_size: i32,
    ret_cas: i32,
) -> Done {
    let key = Guest { caller: &mut c }.read_str(ptr, len)?;
    let Some((value, cas)) = c.data().shared_data.get(&key).cloned() else {
        return fail(status::NOT_FOUND);
    };
    let mut guest = Guest { caller: &mut c };
    guest.give(&value, ret_data, ret_size)?;
    guest.write_u32(ret_cas, cas)
}

fn set_shared_data(
    mut c: C<'_>,
    ptr: i32,
    len: i32,
    value_ptr: i32,
    value_len: i32,
    cas: i32,
) -> Done {
    let mut guest = Guest { caller: &mut c };
    let key = guest.read_str(ptr, len)?;
    let value = guest.read(value_ptr, value_len)?;
    let entry = c
        .data_mut()
        .shared_data
        .entry(key)
        .or_insert((Vec::new(), 0));
    if cas != 0 && cas as u32 != entry.1 {
        return fail(status::CAS_MISMATCH);
    }
    *entry = (value, entry.1.wrapping_add(1).max(1));
    Ok(())
}

fn register_shared_queue(mut c: C<'_>, ptr: i32, len: i32, ret_id: i32) -> Done {
    let name = Guest { caller: &mut c }.read_str(ptr, len)?;
    let queues = &mut c.data_mut().queues;
    let index = match queues.iter().position(|q| q.name == name) {
        Some(i) => i,
        None => {
            queues.push(Queue {
                name,
                items: VecDeque::new(),
            });
            queues.len() - 1
        }
    };
    Guest { caller: &mut c }.write_u32(ret_id, index as u32 + 1)
}

fn resolve_shared_queue(
    mut c: C<'_>,
    vm_ptr: i32,
    vm_len: i32,
    ptr: i32,
    len: i32,
    ret_id: i32,
) -> Done {
    let mut guest = Guest { caller: &mut c };
    // One VM: any VM id names this one.
    guest.read(vm_ptr, vm_len)?;
    let name = guest.read_str(ptr, len)?;
    match c.data().queues.iter().position(|q| q.name == name) {
        Some(i) => Guest { caller: &mut c }.write_u32(ret_id, i as u32 + 1),
        None => fail(status::NOT_FOUND),
    }
}

fn queue(c: &mut C<'_>, id: i32) -> Result<usize, super::Fail> {
    let index = (id as u32).wrapping_sub(1) as usize;
    if index < c.data().queues.len() {
        Ok(index)
    } else {
        fail(status::NOT_FOUND)
    }
}

fn enqueue_shared_queue(mut c: C<'_>, id: i32, ptr: i32, len: i32) -> Done {
    let index = queue(&mut c, id)?;
    let value = Guest { caller: &mut c }.read(ptr, len)?;
    let state = c.data_mut();
    state.queues[index].items.push_back(value);
    state.queues_ready.push(id as u32);
    Ok(())
}

fn dequeue_shared_queue(mut c: C<'_>, id: i32, ret_data: i32, ret_size: i32) -> Done {
    let index = queue(&mut c, id)?;
    let Some(value) = c.data_mut().queues[index].items.pop_front() else {
        return fail(status::EMPTY);
    };
    Guest { caller: &mut c }.give(&value, ret_data, ret_size)
}

fn get_property(mut c: C<'_>, ptr: i32, len: i32, ret_data: i32, ret_size: i32) -> Done {
    // A path is its segments, each followed by a NUL.
    let path = Guest { caller: &mut c }.read(ptr, len)?;
    let path = String::from_utf8_lossy(&path)
        .trim_end_matches('\0')
        .replace('\0', ".");
    let Some(value) = c.data().properties.get(&path).cloned() else {
        return fail(status::NOT_FOUND);
    };
    Guest { caller: &mut c }.give(&value, ret_data, ret_size)
}

fn set_property(mut c: C<'_>, ptr: i32, len: i32, value_ptr: i32, value_len: i32) -> Done {
    let mut guest = Guest { caller: &mut c };
    guest.read(ptr, len)?;
    guest.read(value_ptr, value_len)?;
    // No property of this host can be written.
    fail(status::NOT_FOUND)
}

/// `proxy_grpc_call` and `proxy_grpc_stream`: the upstream is read (its
/// memory checked) and is none this host knows.
fn unknown_grpc_upstream(mut c: C<'_>, up: i32, len: i32) -> Done {
    Guest { caller: &mut c }.read(up, len)?;
    fail(status::PARSE_FAILURE)
}

/// Registers the VM hostcalls.
pub(super) fn link(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    l.func_wrap("env", "proxy_log", |c: C<'_>, a, b, d| {
        status_of(log(c, a, b, d))
    })?;
    l.func_wrap("env", "proxy_get_log_level", |mut c: C<'_>, ret: i32| {
        let level = c.data().log_level as u32;
        status_of(Guest { caller: &mut c }.write_u32(ret, level))
    })?;
    l.func_wrap(
        "env",
        "proxy_get_current_time_nanoseconds",
        |mut c: C<'_>, ret: i32| {
            let now = c.data().now;
            status_of(Guest { caller: &mut c }.write_u64(ret, now))
        },
    )?;
    l.func_wrap(
        "env",
        "proxy_set_tick_period_milliseconds",
        |mut c: C<'_>, period: i32| {
            c.data_mut().tick_period_ms = period as u32;
            Ok(status::OK)
        },
    )?;
    l.func_wrap("env", "proxy_set_effective_context", |c: C<'_>, id| {
        status_of(set_effective_context(c, id))
    })?;
    l.func_wrap("env", "proxy_done", |c: C<'_>| status_of(done(c)))?;
    l.func_wrap("env", "proxy_define_metric", |c: C<'_>, a, b, d, e| {
        status_of(define_metric(c, a, b, d, e))
    })?;
    l.func_wrap("env", "proxy_record_metric", |c: C<'_>, id, v| {
        status_of(record_metric(c, id, v))
    })?;
    l.func_wrap("env", "proxy_increment_metric", |c: C<'_>, id, d| {
        status_of(increment_metric(c, id, d))
    })?;
    l.func_wrap("env", "proxy_get_metric", |c: C<'_>, id, ret| {
        status_of(get_metric(c, id, ret))
    })?;
    l.func_wrap("env", "proxy_get_shared_data", |c: C<'_>, a, b, d, e, f| {
        status_of(get_shared_data(c, a, b, d, e, f))
    })?;
    l.func_wrap("env", "proxy_set_shared_data", |c: C<'_>, a, b, d, e, f| {
        status_of(set_shared_data(c, a, b, d, e, f))
    })?;
    l.func_wrap("env", "proxy_register_shared_queue", |c: C<'_>, a, b, d| {
        status_of(register_shared_queue(c, a, b, d))
    })?;
    l.func_wrap(
        "env",
        "proxy_resolve_shared_queue",
        |c: C<'_>, a, b, d, e, f| status_of(resolve_shared_queue(c, a, b, d, e, f)),
    )?;
    l.func_wrap("env", "proxy_enqueue_shared_queue", |c: C<'_>, a, b, d| {
        status_of(enqueue_shared_queue(c, a, b, d))
    })?;
    l.func_wrap("env", "proxy_dequeue_shared_queue", |c: C<'_>, a, b, d| {
        status_of(dequeue_shared_queue(c, a, b, d))
    })?;
    l.func_wrap("env", "proxy_get_property", |c: C<'_>, a, b, d, e| {
        status_of(get_property(c, a, b, d, e))
    })?;
    l.func_wrap("env", "proxy_set_property", |c: C<'_>, a, b, d, e| {
        status_of(set_property(c, a, b, d, e))
    })?;
    // This host has no gRPC upstreams and no foreign functions.
    l.func_wrap(
        "env",
        "proxy_grpc_call",
        |c: C<'_>,
         up,
         len,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32,
         _: i32| { status_of(unknown_grpc_upstream(c, up, len)) },
    )?;
    l.func_wrap(
        "env",
        "proxy_grpc_stream",
        |c: C<'_>, up, len, _: i32, _: i32, _: i32, _: i32, _: i32, _: i32, _: i32| {
            status_of(unknown_grpc_upstream(c, up, len))
        },
    )?;
    l.func_wrap(
        "env",
        "proxy_grpc_send",
        |_: C<'_>, _: i32, _: i32, _: i32, _: i32| Ok(status::NOT_FOUND),
    )?;
    l.func_wrap("env", "proxy_grpc_cancel", |_: C<'_>, _: i32| {
        Ok(status::NOT_FOUND)
    })?;
    l.func_wrap("env", "proxy_grpc_close", |_: C<'_>, _: i32| {
        Ok(status::NOT_FOUND)
    })?;
    l.func_wrap(
        "env",
        "proxy_call_foreign_function",
        |mut c: C<'_>, name: i32, name_len: i32, args: i32, args_len: i32, _: i32, _: i32| {
            let mut guest = Guest { caller: &mut c };
            status_of(
                guest
                    .read(name, name_len)
                    .and_then(|_| guest.read(args, args_len))
                    .and_then(|_| fail(status::NOT_FOUND)),
            )
        },
    )?;
    Ok(())
}
