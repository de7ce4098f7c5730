"""Drives kioku's /mcp endpoint with the official MCP Python SDK for tests/api/mcp.rs: lists the
tools, saves, loads, searches, forgets and provokes each tool error, as client.mjs does with the
TypeScript SDK. Exits non-zero naming the first failed expectation; on success prints one JSON
line with what the Rust test then checks through the HTTP API."""

import asyncio
import json
import os
import sys
import uuid
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# JSON-RPC's codes for a request's bad parameters and an unknown method.
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601


class Failed(Exception):
    pass


def expect(condition: Any, message: str) -> None:
    if not condition:
        raise Failed(message)


def env(name: str) -> str:
    value = os.environ.get(name)
    expect(value, f"{name} is not set")
    return value


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def wire(model: Any) -> dict:
    """A result or tool as the server sent it, in the protocol's JSON names."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def content(name: str, result: dict) -> dict:
    """A successful call's structuredContent, after the checks every tool result must pass."""
    expect(not result.get("isError"), f"{name} failed: {show(result)}")
    structured = result.get("structuredContent")
    expect(structured, f"{name} has no structuredContent: {show(result)}")
    texts = [c for c in result.get("content", []) if c.get("type") == "text" and c["text"].strip()]
    expect(texts, f"{name} has no text content: {show(result)}")
    return structured


async def call(session: ClientSession, name: str, args: dict) -> dict:
    return content(name, wire(await session.call_tool(name, args)))


def check_tool_error(name: str, result: dict, codes: list[str] | None) -> None:
    """A tool error with one of `codes` (None: any)."""
    error = result.get("structuredContent") or {}
    expect(result.get("isError") is True, f"{name} should fail with {codes}: {show(result)[:300]}")
    expect(
        error.get("status") == "error"
        and (codes is None or error.get("code") in codes)
        and len(error.get("message", "")) > 10,
        f"{name} should fail with {codes}: {show(error)}",
    )
    expect(any(c.get("type") == "text" for c in result.get("content", [])), f"{name}'s error has no text content")


async def call_expecting_error(session: ClientSession, name: str, args: dict, codes: list[str]) -> None:
    check_tool_error(name, wire(await session.call_tool(name, args)), codes)


async def call_expecting_refusal(
    session: ClientSession, name: str, args: dict, codes: list[str] | None, rpc_codes: list[int]
) -> None:
    """A tool error with `codes`, or a JSON-RPC error with `rpc_codes`. The SDK reports an HTTP
    error status as an internal error (-32603), which is in no `rpc_codes`, so it fails."""
    try:
        result = await session.call_tool(name, args)
    except MCPError as err:
        expect(err.code in rpc_codes, f"{name} {show(args)} should be refused with {codes} or {rpc_codes}: {err}")
        return
    check_tool_error(name, wire(result), codes)


def is_type(schema: dict | None, type_: str) -> bool:
    declared = (schema or {}).get("type")
    return declared == type_ or (isinstance(declared, list) and type_ in declared)


def check_tool(
    tools: list[dict],
    name: str,
    fields: dict[str, str],
    required: list[str],
    **hints: bool,
) -> None:
    """The tool's input fields and their types, what it requires, its outputSchema and `hints`."""
    tool = next((t for t in tools if t["name"] == name), None)
    expect(tool, f"no tool {name} in {[t['name'] for t in tools]}")
    expect(tool.get("description", "").strip(), f"{name} has no description")
    properties = tool["inputSchema"].get("properties", {})
    for field, type_ in fields.items():
        expect(is_type(properties.get(field), type_), f"{name}.{field} should be a {type_}: {properties.get(field)}")
    actual_required = sorted(tool["inputSchema"].get("required", []))
    expect(actual_required == required, f"{name} requires {actual_required}, not {required}")
    expect((tool.get("outputSchema") or {}).get("type") == "object", f"{name} has no outputSchema")
    # The spec's defaults: a tool is not read-only, may be destructive, is not idempotent.
    annotations = tool.get("annotations", {})
    defaults = {"readOnly": False, "destructive": True, "idempotent": False}
    for hint, wanted in hints.items():
        actual = annotations.get(f"{hint}Hint", defaults[hint])
        expect(actual == wanted, f"{name}: {hint}Hint should be {wanted}: {annotations}")


def summaries_of(load: dict, thread: str) -> list[str]:
    return [entry["summary"] for entry in load.get("data", {}).get(thread, [])]


async def scenario(session: ClientSession, instructions: str | None, expected: dict) -> dict:
    expect(instructions and instructions.strip(), "initialize gave no instructions")

    tools = [wire(t) for t in (await session.list_tools()).tools]
    check_tool(
        tools,
        "save_memory",
        {"summary": "string", "thread_id": "string"},
        ["summary"],
        readOnly=False,
        destructive=False,
        idempotent=False,
    )
    check_tool(
        tools,
        "load_memories",
        {"q": "string", "thread_id": "string", "since": "string", "before": "string", "limit": "integer"},
        [],
        readOnly=True,
    )
    check_tool(
        tools,
        "forget_memory",
        {"thread_id": "string", "timestamp": "string", "profile": "boolean"},
        [],
        readOnly=False,
        destructive=True,
    )
    check_tool(tools, "load_profile", {"version": "integer"}, [], readOnly=True)
    check_tool(
        tools,
        "save_profile",
        {"profile": "string", "expected_version": "integer"},
        ["profile"],
        readOnly=False,
        destructive=False,
    )

    # A word no other summary holds, so that a search finds exactly these.
    word = f"py{uuid.uuid4().hex}"
    forgotten = f"Through MCP from Python, to forget: {word}"
    kept = f"Through MCP from Python, to keep: {word}"

    first = await call(session, "save_memory", {"summary": forgotten})
    expect(
        first.get("status") == "saved"
        and first.get("count", 0) >= 1
        and isinstance(first.get("thread_id"), str)
        and isinstance(first.get("timestamp"), str),
        f"save_memory answered {show(first)}",
    )
    thread = first["thread_id"]
    second = await call(session, "save_memory", {"summary": kept, "thread_id": thread})
    expect(
        second.get("status") == "saved" and second.get("thread_id") == thread,
        f"second save_memory answered {show(second)}",
    )

    everything = await call(session, "load_memories", {})
    expect(
        everything.get("status") == "loaded" and everything.get("count") == len(everything.get("data", {})),
        f"load_memories answered {show(everything)}",
    )
    expect(summaries_of(everything, thread) == [forgotten, kept], f"load_memories lacks the saves: {show(everything)}")
    loaded_first = everything["data"][thread][0]
    expect(
        loaded_first["timestamp"] == first["timestamp"],
        f"the load's timestamp differs from the save's: {loaded_first} vs {first['timestamp']}",
    )
    expect(
        expected["summary"] in summaries_of(everything, expected["thread"]),
        f"load_memories lacks the summary saved through HTTP: {show(everything)}",
    )
    # Saved with the same token through either door: each entry names it as its writer.
    for entry in everything["data"][thread] + everything["data"][expected["thread"]]:
        expect(entry.get("writer") == expected["writer"], f"an entry's writer is {show(entry.get('writer'))}")

    found = await call(session, "load_memories", {"q": word})
    expect(found.get("status") == "found" and found.get("count") == 2, f"a search for the new word answered {show(found)}")
    for result in found["results"]:
        expect(result["thread_id"] == thread and word in result["summary"], f"unexpected search result {show(result)}")
    missing = await call(session, "load_memories", {"q": f"nothing{word}"})
    expect(
        missing.get("status") == "no_match" and missing.get("count") == 0,
        f"a search for no word answered {show(missing)}",
    )

    one = await call(session, "load_memories", {"thread_id": thread})
    expect(list(one.get("data", {})) == [thread], f"load with thread_id gave {list(one.get('data', {}))}")
    # The newest thread is this one; limit counts threads.
    newest = await call(session, "load_memories", {"limit": 1})
    expect(list(newest.get("data", {})) == [thread], f"load with limit 1 gave {show(newest)}")

    forget = await call(session, "forget_memory", {"thread_id": thread, "timestamp": first["timestamp"]})
    expect(
        forget == {"status": "forgotten", "thread_id": thread, "forgotten_entries": 1, "thread_removed": False},
        f"forget_memory answered {show(forget)}",
    )
    after = await call(session, "load_memories", {"thread_id": thread})
    expect(summaries_of(after, thread) == [kept], f"after forget_memory the thread holds {show(after)}")

    await call_expecting_error(session, "save_memory", {"summary": "x" * 5001}, ["summary_too_long"])
    await call_expecting_error(session, "save_memory", {"summary": " \n\t "}, ["blank_summary"])
    await call_expecting_error(session, "forget_memory", {"thread_id": f"no-such-thread-{word}"}, ["nothing_to_forget"])
    unfit = ["malformed_json", "missing_summary"]
    await call_expecting_refusal(session, "save_memory", {"summary": 42}, unfit, [INVALID_PARAMS])
    await call_expecting_refusal(session, "save_memory", {}, unfit, [INVALID_PARAMS])
    await call_expecting_refusal(session, f"no_such_tool_{word}", {}, None, [INVALID_PARAMS, METHOD_NOT_FOUND])

    # The refusals above saved nothing: the thread is as forget_memory left it.
    final = await call(session, "load_memories", {"thread_id": thread})
    expect(summaries_of(final, thread) == [kept], f"the refusals changed the thread: {show(final)}")

    # The profile: written from nothing, refused from a stale version, read, and carried by a load.
    none = await call(session, "load_profile", {})
    expect(none == {"status": "empty"}, f"load_profile before any answered {show(none)}")
    profile = f"Prefers Python; {word}"
    written = await call(session, "save_profile", {"profile": profile, "expected_version": 0})
    expect(written.get("status") == "saved" and written.get("version") == 1, f"save_profile answered {show(written)}")
    await call_expecting_error(session, "save_profile", {"profile": "stale", "expected_version": 0}, ["profile_conflict"])
    read = await call(session, "load_profile", {})
    expect(
        read.get("status") == "profile" and read.get("profile") == profile and read.get("version") == 1,
        f"load_profile answered {show(read)}",
    )
    carried = await call(session, "load_memories", {})
    expect((carried.get("profile") or {}).get("profile") == profile, f"load_memories lacks the profile: {show(carried)}")
    return {
        "client": "python",
        "thread_id": thread,
        "kept": kept,
        "forgotten": forgotten,
        "forgotten_timestamp": first["timestamp"],
        "profile": profile,
    }


async def main() -> str | None:
    """Runs the scenario; the failed expectation, if any. Caught here, inside the SDK's task
    groups, so that it is not wrapped in an exception group."""
    url = env("KIOKU_MCP_URL")
    token = env("KIOKU_TOKEN")
    expected = {
        "summary": env("KIOKU_EXPECT_SUMMARY"),
        "thread": env("KIOKU_EXPECT_THREAD"),
        "writer": json.loads(env("KIOKU_EXPECT_WRITER")),
    }
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                try:
                    print(json.dumps(await scenario(session, initialized.instructions, expected)))
                except Failed as failed:
                    return f"client.py: {failed}"
    return None


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
