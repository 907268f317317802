//! Hostcalls about HTTP: the buffers (bodies, configurations, a call's
//! answer), the header maps, pausing and closing streams, local
//! responses, and calls to an upstream (`proxy_http_call`).

use wasmtime::{Caller, Linker};

use super::{Done, Fail, Guest, fail, status_of};
use crate::abi::{buffer, deserialize_map, map, serialize_map, status, stream};
use crate::state::{HostState, HttpMessage, LocalResponse, PendingCall, Phase};

type C<'a> = Caller<'a, HostState>;

/// The buffer `kind`, as the running callback may see it.
fn buffer_mut(state: &mut HostState, kind: i32) -> Result<&mut Vec<u8>, Fail> {
    if !(0..=buffer::LAST).contains(&kind) {
        return fail(status::BAD_ARGUMENT);
    }
    let phase = state.phase;
    let found = match kind {
        buffer::HTTP_REQUEST_BODY => state.stream().map(|s| &mut s.request.body),
        buffer::HTTP_RESPONSE_BODY => state
            .stream()
            .and_then(|s| s.response.as_mut())
            .map(|r| &mut r.body),
        buffer::HTTP_CALL_RESPONSE_BODY if phase == Phase::CallResponse => {
            state.call_response.as_mut().map(|r| &mut r.body)
        }
        buffer::VM_CONFIGURATION if phase == Phase::VmStart => Some(&mut state.vm_configuration),
        buffer::PLUGIN_CONFIGURATION if phase == Phase::Configure => {
            Some(&mut state.plugin_configuration)
        }
        _ => None,
    };
    match found {
        Some(b) => Ok(b),
        None => fail(status::NOT_FOUND),
    }
}

fn get_buffer_bytes(
    mut c: C<'_>,
    kind: i32,
    start: i32,
    max: i32,
    ret_data: i32,
    ret_size: i32,
) -> Done {
    let bytes = buffer_mut(c.data_mut(), kind)?;
    let (start, max) = (start as u32 as usize, max as u32 as usize);
    if start > bytes.len() {
        return fail(status::BAD_ARGUMENT);
    }
    let end = start.saturating_add(max).min(bytes.len());
    let slice = bytes[start..end].to_vec();
    Guest { caller: &mut c }.give(&slice, ret_data, ret_size)
}

fn set_buffer_bytes(mut c: C<'_>, kind: i32, start: i32, size: i32, ptr: i32, len: i32) -> Done {
    let value = Guest { caller: &mut c }.read(ptr, len)?;
    if !matches!(kind, buffer::HTTP_REQUEST_BODY | buffer::HTTP_RESPONSE_BODY) {
        // Configurations and answers are the host's to give, not to change.
        buffer_mut(c.data_mut(), kind)?;
        return fail(status::BAD_ARGUMENT);
    }
    let bytes = buffer_mut(c.data_mut(), kind)?;
    // Replace `size` bytes at `start`: prepend, append, inject, replace.
    let start = (start as u32 as usize).min(bytes.len());
    let end = start.saturating_add(size as u32 as usize).min(bytes.len());
    bytes.splice(start..end, value);
    Ok(())
}

/// The header map `kind`: the headers or trailers of the effective
/// stream's request or response, or of the call answer being delivered.
fn map_mut(state: &mut HostState, kind: i32) -> Result<Option<&mut Vec<(String, String)>>, Fail> {
    if !(0..=map::LAST).contains(&kind) {
        return fail(status::BAD_ARGUMENT);
    }
    let in_call = state.phase == Phase::CallResponse;
    Ok(match kind {
        map::HTTP_REQUEST_HEADERS => state.stream().map(|s| &mut s.request.headers),
        map::HTTP_REQUEST_TRAILERS => state.stream().map(|s| &mut s.request.trailers),
        map::HTTP_RESPONSE_HEADERS => state
            .stream()
            .and_then(|s| s.response.as_mut())
            .map(|r| &mut r.headers),
        map::HTTP_RESPONSE_TRAILERS => state
            .stream()
            .and_then(|s| s.response.as_mut())
            .map(|r| &mut r.trailers),
        map::HTTP_CALL_RESPONSE_HEADERS if in_call => {
            state.call_response.as_mut().map(|r| &mut r.headers)
        }
        map::HTTP_CALL_RESPONSE_TRAILERS if in_call => {
            state.call_response.as_mut().map(|r| &mut r.trailers)
        }
        // gRPC metadata: this host makes no gRPC calls.
        _ => None,
    })
}

fn get_header_map_pairs(mut c: C<'_>, kind: i32, ret_data: i32, ret_size: i32) -> Done {
    let pairs = map_mut(c.data_mut(), kind)?.cloned().unwrap_or_default();
    Guest { caller: &mut c }.give(&serialize_map(&pairs), ret_data, ret_size)
}

fn set_header_map_pairs(mut c: C<'_>, kind: i32, ptr: i32, len: i32) -> Done {
    let bytes = Guest { caller: &mut c }.read(ptr, len)?;
    let Some(pairs) = deserialize_map(&bytes) else {
        return fail(status::BAD_ARGUMENT);
    };
    match map_mut(c.data_mut(), kind)? {
        Some(map) => *map = pairs,
        None => return fail(status::NOT_FOUND),
    }
    Ok(())
}

fn get_header_map_value(
    mut c: C<'_>,
    kind: i32,
    ptr: i32,
    len: i32,
    ret_data: i32,
    ret_size: i32,
) -> Done {
    let key = Guest { caller: &mut c }.read_str(ptr, len)?;
    let value = map_mut(c.data_mut(), kind)?
        .and_then(|m| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(&key)))
        .map(|(_, v)| v.clone());
    match value {
        Some(v) => Guest { caller: &mut c }.give(v.as_bytes(), ret_data, ret_size),
        None => fail(status::NOT_FOUND),
    }
}

/// How a map changes: add a pair, replace a key's value (or add it), remove a key.
#[derive(Clone, Copy)]
enum Edit {
    Add,
    Replace,
    Remove,
}

fn edit_map(mut c: C<'_>, edit: Edit, kind: i32, key: (i32, i32), value: (i32, i32)) -> Done {
    let mut guest = Guest { caller: &mut c };
    let key = guest.read_str(key.0, key.1)?;
    let value = match edit {
        Edit::Remove => String::new(),
        _ => guest.read_str(value.0, value.1)?,
    };
    let Some(map) = map_mut(c.data_mut(), kind)? else {
        return fail(status::NOT_FOUND);
    };
    match edit {
        Edit::Add => map.push((key, value)),
        Edit::Replace => match map.iter().position(|(k, _)| k.eq_ignore_ascii_case(&key)) {
            Some(i) => {
                map[i].1 = value;
                let mut seen = 0;
                map.retain(|(k, _)| {
                    let same = k.eq_ignore_ascii_case(&key);
                    seen += usize::from(same);
                    !same || seen == 1
                });
            }
            None => map.push((key, value)),
        },
        Edit::Remove => map.retain(|(k, _)| !k.eq_ignore_ascii_case(&key)),
    }
    Ok(())
}

fn stream_flag(mut c: C<'_>, kind: i32, close: bool) -> Done {
    if !(0..=stream::LAST).contains(&kind) {
        return fail(status::BAD_ARGUMENT);
    }
    if !matches!(kind, stream::HTTP_REQUEST | stream::HTTP_RESPONSE) {
        // TCP streams: this host has none.
        return fail(if close {
            status::NOT_FOUND
        } else {
            status::UNIMPLEMENTED
        });
    }
    let Some(stream) = c.data_mut().stream() else {
        return fail(status::NOT_FOUND);
    };
    if close {
        stream.closed = true;
    } else {
        stream.continued[kind as usize] = true;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn send_local_response(
    mut c: C<'_>,
    code: i32,
    details: (i32, i32),
    body: (i32, i32),
    headers: (i32, i32),
    _grpc_status: i32,
) -> Done {
    let mut guest = Guest { caller: &mut c };
    let details = String::from_utf8_lossy(&guest.read(details.0, details.1)?).into_owned();
    let body = guest.read(body.0, body.1)?;
    let Some(mut pairs) = deserialize_map(&guest.read(headers.0, headers.1)?) else {
        return fail(status::BAD_ARGUMENT);
    };
    let code = code as u32;
    pairs.insert(0, (":status".into(), code.to_string()));
    let Some(stream) = c.data_mut().stream() else {
        return fail(status::NOT_FOUND);
    };
    stream.local = Some(LocalResponse {
        status: code,
        details,
        response: HttpMessage {
            headers: pairs,
            body,
            trailers: Vec::new(),
        },
    });
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn http_call(
    mut c: C<'_>,
    upstream: (i32, i32),
    headers: (i32, i32),
    body: (i32, i32),
    trailers: (i32, i32),
    timeout_ms: i32,
    ret_id: i32,
) -> Done {
    let mut guest = Guest { caller: &mut c };
    let upstream = guest.read_str(upstream.0, upstream.1)?;
    let headers = deserialize_map(&guest.read(headers.0, headers.1)?);
    let body = guest.read(body.0, body.1)?;
    let trailers = deserialize_map(&guest.read(trailers.0, trailers.1)?);
    let (Some(headers), Some(trailers)) = (headers, trailers) else {
        return fail(status::BAD_ARGUMENT);
    };
    let state = c.data_mut();
    let has = |name: &str| headers.iter().any(|(k, _)| k == name);
    let required = has(":authority") && has(":method") && has(":path");
    if !(state.clusters.contains(&upstream) && required) {
        return fail(status::BAD_ARGUMENT);
    }
    state.last_call_id += 1;
    let token = state.last_call_id;
    state.calls.push_back(PendingCall {
        context: state.effective_context,
        token,
        upstream,
        request: HttpMessage {
            headers,
            body,
            trailers,
        },
        timeout_ms: timeout_ms as u32,
    });
    Guest { caller: &mut c }.write_u32(ret_id, token)
}

fn get_status(mut c: C<'_>, ret_code: i32, ret_data: i32, ret_size: i32) -> Done {
    let state = c.data();
    if state.phase != Phase::CallResponse {
        return fail(status::NOT_FOUND);
    }
    // A failed call (no answer) has status 0.
    let code = state
        .call_response
        .as_ref()
        .and_then(HttpMessage::status)
        .map_or(0, u32::from);
    let mut guest = Guest { caller: &mut c };
    guest.write_u32(ret_code, code)?;
    guest.give(b"", ret_data, ret_size)
}

/// Registers the HTTP hostcalls.
pub(super) fn link(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    l.func_wrap(
        "env",
        "proxy_get_buffer_bytes",
        |c: C<'_>, a, b, d, e, f| status_of(get_buffer_bytes(c, a, b, d, e, f)),
    )?;
    l.func_wrap(
        "env",
        "proxy_set_buffer_bytes",
        |c: C<'_>, a, b, d, e, f| status_of(set_buffer_bytes(c, a, b, d, e, f)),
    )?;
    l.func_wrap("env", "proxy_get_header_map_pairs", |c: C<'_>, a, b, d| {
        status_of(get_header_map_pairs(c, a, b, d))
    })?;
    l.func_wrap("env", "proxy_set_header_map_pairs", |c: C<'_>, a, b, d| {
        status_of(set_header_map_pairs(c, a, b, d))
    })?;
    l.func_wrap(
        "env",
        "proxy_get_header_map_value",
        |c: C<'_>, a, b, d, e, f| status_of(get_header_map_value(c, a, b, d, e, f)),
    )?;
    l.func_wrap(
        "env",
        "proxy_add_header_map_value",
        |c: C<'_>, k, a, b, d, e| status_of(edit_map(c, Edit::Add, k, (a, b), (d, e))),
    )?;
    l.func_wrap(
        "env",
        "proxy_replace_header_map_value",
        |c: C<'_>, k, a, b, d, e| status_of(edit_map(c, Edit::Replace, k, (a, b), (d, e))),
    )?;
    l.func_wrap(
        "env",
        "proxy_remove_header_map_value",
        |c: C<'_>, k, a, b| status_of(edit_map(c, Edit::Remove, k, (a, b), (0, 0))),
    )?;
    l.func_wrap("env", "proxy_continue_stream", |c: C<'_>, kind| {
        status_of(stream_flag(c, kind, false))
    })?;
    l.func_wrap("env", "proxy_close_stream", |c: C<'_>, kind| {
        status_of(stream_flag(c, kind, true))
    })?;
    l.func_wrap(
        "env",
        "proxy_send_local_response",
        |c: C<'_>, code, d, dl, b, bl, h, hl, g| {
            status_of(send_local_response(c, code, (d, dl), (b, bl), (h, hl), g))
        },
    )?;
    l.func_wrap(
        "env",
        "proxy_http_call",
        |c: C<'_>, u, ul, h, hl, b, bl, t, tl, timeout, ret| {
            status_of(http_call(
                c,
                (u, ul),
                (h, hl),
                (b, bl),
                (t, tl),
                timeout,
                ret,
            ))
        },
    )?;
    l.func_wrap("env", "proxy_get_status", |c: C<'_>, a, b, d| {
        status_of(get_status(c, a, b, d))
    })?;
    Ok(())
}
