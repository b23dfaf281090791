-- Headless neovim (0.7+, its built-in LSP client) against `tpf-analyze
-- server`: diagnostics arrive for a buggy file and disappear once it is
-- fixed. Run by nvim_test.py: TPF_ANALYZE and TPF_FILE come from the
-- environment; exits 0 when all holds, else 1 with the reason on stderr.
local tpf, file = os.getenv("TPF_ANALYZE"), os.getenv("TPF_FILE")
local function fail(msg)
  io.stderr:write("FAIL: " .. msg .. "\n")
  vim.cmd("cquit 1")
end
local function say(msg) io.stdout:write("ok: " .. msg .. "\n") end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "tpf-analyze",
  cmd = { tpf, "server" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
if not client then fail("the client did not start") end
vim.lsp.buf_attach_client(buf, client)

local function findings(code)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if c == code then table.insert(out, d) end
  end
  return out
end

if not vim.wait(30000, function() return #findings("TPF001") > 0 end, 50) then
  fail("no TPF001 diagnostic within 30 s")
end
local d = findings("TPF001")[1]
if d.lnum ~= 24 or d.col ~= 4 or d.source ~= "tpf-analyze" then
  fail(string.format("TPF001 at %d:%d from %s, expected 24:4 from tpf-analyze", d.lnum, d.col, tostring(d.source)))
end
say("TPF001 arrives at line 25, column 5")

-- The edit an editor user makes: the line fixed in the buffer (unsaved).
vim.api.nvim_buf_set_lines(buf, 24, 25, false, { "    losses.append(loss.item())" })
if not vim.wait(30000, function() return #findings("TPF001") == 0 end, 50) then
  fail("TPF001 still shown 30 s after the fix")
end
say("TPF001 disappears once the line is fixed")
vim.lsp.stop_client(client)
vim.cmd("qall!")
