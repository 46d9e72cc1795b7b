//! `gatehouse mcp`: a Model Context Protocol server on stdio, on the
//! official Rust SDK (`rmcp`), whose tools are gatehouse's commands for
//! agents: each takes and returns JSON described by a JSON Schema (the
//! outputs by the report schema's `$defs`), and fails as a tool error
//! carrying the message the command line gives.

mod tools;

use anyhow::Result;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

/// What the server tells an agent when it connects.
const INSTRUCTIONS: &str = "gatehouse checks governed documents (agent briefs under ADR-099, voting docs \
under ADR-140, fondue specs, ADR 0007 decision dockets) as its GitHub App would on a pull request. \
Call `check` after writing or editing such a document and before opening a pull request; `explain` \
on any rule id a finding names; `fix` for the mechanical fixes; `new_brief` to scaffold a brief; \
`verify` before acting on a brief, refusing to start from one that is not `verified`.";

struct Gatehouse;

impl ServerHandler for Gatehouse {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gatehouse", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools::all().iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(format!("gatehouse has no tool `{name}`"), None));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        // The tools read files and run git: off the protocol's threads.
        let outcome = tokio::task::spawn_blocking(move || tools::call(&name, arguments))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool stopped: {e}"), None))?;
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
        .into())
    }
}

/// Serves the protocol on stdio until the client closes it.
pub fn serve() -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let service = Gatehouse.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    })
}
