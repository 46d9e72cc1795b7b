-- Drives `gatehouse lsp` from Neovim's own LSP client (0.7 and later):
-- opens a brief, types a mistake, waits for the diagnostics, applies the
-- code action offered, waits for them to clear, and hovers on an ADR id.
-- What it saw is written as JSON to $GATEHOUSE_RESULT for tests/lsp_neovim.rs.
local bin = os.getenv('GATEHOUSE_BIN')
local root = os.getenv('GATEHOUSE_WORKSPACE')
local brief = os.getenv('GATEHOUSE_BRIEF')
local out = os.getenv('GATEHOUSE_RESULT')
local result = {}

local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, d.code)
  end
  table.sort(found)
  return found
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. brief))
  local buf = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({ name = 'gatehouse', cmd = { bin, 'lsp' }, root_dir = root })
  assert(client, 'the client started')
  vim.lsp.buf_attach_client(buf, client)
  result.attached = vim.wait(10000, function()
    local c = vim.lsp.get_client_by_id(client)
    return c ~= nil and c.initialized == true
  end, 20)

  -- Type a mistake: the estimate quoted, as a string.
  vim.fn.search('^lines_estimate: ')
  vim.cmd('normal! f8i"')
  vim.cmd('normal! A"')
  result.typed = vim.fn.getline('.')
  vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  result.diagnostics = codes(buf)
  local first = vim.diagnostic.get(buf)[1]
  result.message = first and first.message or ''

  -- The code action offered where the cursor is, applied.
  local params = vim.lsp.util.make_range_params(0, 'utf-16')
  params.context = { diagnostics = {} }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000) or {}
  result.actions = {}
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      table.insert(result.actions, action.title)
      if #result.actions == 1 and action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
      end
    end
  end
  result.fixed = vim.fn.getline(vim.fn.search('^lines_estimate'))
  vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  result.after_fix = codes(buf)

  -- Hover on the ADR the body cites.
  vim.fn.search('Implement ADR')
  vim.cmd('normal! w')
  local hovers = vim.lsp.buf_request_sync(buf, 'textDocument/hover', vim.lsp.util.make_position_params(0, 'utf-16'), 10000) or {}
  for _, answer in pairs(hovers) do
    if answer.result then
      result.hover = answer.result.contents.value
    end
  end
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
vim.fn.writefile({ vim.fn.json_encode(result) }, out)
vim.cmd('qa!')
