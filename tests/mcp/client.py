"""Drives `gatehouse mcp` with the official MCP client SDK (PyPI `mcp`).

Usage: client.py GATEHOUSE_BIN WORKSPACE CALLS_JSON RESULT_JSON

Lists the tools, then makes each call of CALLS_JSON ([label, tool, arguments]
triples) through ClientSession.call_tool, which validates every answer that
is not an error against the tool's output schema. Writes what it saw to
RESULT_JSON for tests/mcp_client.rs to assert on.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(binary: str, workspace: str, calls_file: str, result_file: str) -> None:
    with open(calls_file) as f:
        calls = json.load(f)
    seen: dict = {"calls": {}}
    server = StdioServerParameters(command=binary, args=["mcp"], cwd=workspace)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            seen["instructions"] = init.instructions
            listed = await session.list_tools()
            seen["tools"] = {
                tool.name: {
                    "description": tool.description,
                    "input": tool.input_schema,
                    "output": tool.output_schema,
                }
                for tool in listed.tools
            }
            for label, tool, arguments in calls:
                try:
                    result = await session.call_tool(tool, arguments)
                except Exception as error:  # noqa: BLE001 - reported to the Rust test
                    seen["calls"][label] = {"exception": f"{type(error).__name__}: {error}"}
                    continue
                seen["calls"][label] = {
                    "error": bool(result.is_error),
                    "structured": result.structured_content,
                    "text": [block.text for block in result.content if getattr(block, "text", None) is not None],
                }
    with open(result_file, "w") as f:
        json.dump(seen, f)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
