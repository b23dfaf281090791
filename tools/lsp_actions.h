// The language server's content: LSP diagnostics and text edits of the
// tool's findings and fixes, the `# tpf: ignore[CODE]` edit of a line, the
// `target` key of a pyproject.toml [tool.tpf] table under the cursor, and
// the Markdown of a VRAM estimate. Pure functions of their inputs.
// requires: findings, suppressions, the estimate reporter. produces: JSON, edits, Markdown.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lexer/diag.h"
#include "lexer/source.h"
#include "memory/memory.h"
#include "tools/lsp_text.h"

namespace tpf::tools::lsp {

/// The LSP Diagnostic of a finding (or a frontend error) in the document
/// at `uri`: range, severity, code, source "tpf-analyze", message (with the
/// help line), notes as related information.
nlohmann::json to_lsp(const Diagnostic& d, const TextPositions& tp, const std::string& uri);

/// LSP TextEdits of byte-exact edits of the text `tp` indexes.
nlohmann::json text_edits(std::span<const Edit> edits, const TextPositions& tp);

/// The edit that silences `code` on line `line` (1-based) of `src`, as
/// --add-noqa writes it (suppression_edit): merged into a `# tpf:
/// ignore[...]` already there, else `  # tpf: ignore[CODE]` appended. A
/// line that ends inside a multi-line string or with a backslash
/// continuation cannot hold a comment: the edit goes on the line
/// CommentLines names. Nullopt when the line silences every rule already.
std::optional<Edit> ignore_edit(const SourceFile& src, uint32_t line, std::string_view code);

/// When line `line0` (0-based) of a pyproject.toml's text is the `target`
/// key of its [tool.tpf] table: the target as written. Else nullopt.
std::optional<std::string> tool_tpf_target_at(std::string_view toml_text, uint32_t line0);

/// A hover's Markdown for one estimate: a title line, then the text
/// report (tools/report_memory.cpp) as a code block.
std::string estimate_markdown(const memory::Estimate& e, std::string_view title);

}  // namespace tpf::tools::lsp
