-- Runs after Neovim opened a brief with the user's init.lua (the set-up
-- docs/editors-and-agents.md gives): waits for a client on the buffer and
-- its diagnostics, and writes what it saw as JSON to $GATEHOUSE_RESULT.
local out = os.getenv('GATEHOUSE_RESULT')
local buf = vim.api.nvim_get_current_buf()
local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
local result = {}
result.filetype = vim.bo[buf].filetype
result.attached = vim.wait(10000, function()
  for _, client in ipairs(clients()) do
    if client.name == 'gatehouse' and client.initialized and vim.lsp.buf_is_attached(buf, client.id) then
      return true
    end
  end
  return false
end, 20)
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
result.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(result.diagnostics, d.code)
end
vim.fn.writefile({ vim.fn.json_encode(result) }, out)
vim.cmd('qa!')
