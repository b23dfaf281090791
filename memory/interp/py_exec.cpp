// Code a script runs from a file at run time: `exec(open(path).read())`
// (nanoGPT's configurator.py, and the config file it names on the command
// line), `globals()` and its writes, `ast.literal_eval`. The file is read
// only inside the script's project (ir::ModuleStore::load_exec) and runs in
// the namespace of the unit that exec'd it: the names it binds replace that
// unit's, at the top level and for its functions, and a configuration name
// (batch_size, block_size) becomes a new source of its setting.
// requires: interp.h, ir/project.h. produces: exec, open, globals, literal_eval.
#include <cstdlib>
#include <filesystem>

#include "memory/interp/interp.h"

namespace tpf::memory {
namespace fs = std::filesystem;

namespace {

/// exec'd files one estimate runs (configurator.py and its config file are
/// two; a loop of exec would otherwise run until the step budget).
constexpr uint32_t kMaxExecRuns = 32;

/// The latest executed store of a module-level name of `u`, as an index
/// into the top frame's values; UINT32_MAX when none. `shared` is set when
/// another name's store holds the same value (`b = a`).
uint32_t latest_store(Interp& in, uint16_t u, ir::Symbol s, bool* shared) {
  Unit& un = in.unit(u);
  if (!un.top) return UINT32_MAX;
  const ir::Function& f = un.ir->fn(ir::FunctionId(0));
  ir::VarId var = f.find_var(s);
  if (!var.valid()) return UINT32_MAX;
  std::span<const uint32_t> st = in.stores(u, ir::FunctionId(0), var);
  for (size_t i = st.size(); i-- > 0;) {
    const ir::LocalRef& r = f.local_refs[st[i]];
    if (un.top->vals[r.value.v].kind == VKind::Unbound) continue;
    if (shared) {
      *shared = false;
      for (const ir::LocalRef& o : f.local_refs)
        if (o.store && o.var != var && o.value == r.value) *shared = true;
    }
    return r.value.v;
  }
  return UINT32_MAX;
}

/// What the report shows as the source of a name an exec'd file bound:
/// the command line's `--name=value` when the run passed one (nanoGPT's
/// configurator), else the file.
std::string exec_how(Interp& in, std::string_view name, std::string_view file) {
  const std::string flag = "--" + std::string(name) + "=";
  for (const std::string& a : in.opt.argv)
    if (a.starts_with(flag)) return "argv " + a + " (via " + std::string(file) + ")";
  return std::string(file) + " (exec)";
}

Value b_open(Interp& in, Args& a) {
  auto path = fspath(in, a.get(in, 0, "file").value_or(Value::unknown()));
  if (!path) return Value::unknown();
  Value name = in.str_value(*path);
  Value f = new_instance(in, "io.file");
  in.o(f).attrs.set(in.intern("name"), name);
  return f;
}

Value b_exec(Interp& in, Args& a) {
  Value code = a.get(in, 0, "source").value_or(Value::unknown());
  Obj* ob = in.instance(code);
  if (ob && ob->type != kNone32 && in.str(ob->type) == "io.file.text") {
    if (const Value* p = ob->attrs.find(in.intern("name")); p && in.as_str(*p)) in.exec_file(*in.as_str(*p), a.span);
    return Value::none();
  }
  in.note_unknown("`exec` of code the interpreter cannot read (only `exec(open(path).read())` of a project file is run)",
                  a.span, false);
  return Value::none();
}

Value b_globals(Interp& in, Args&) { return in.globals_dict(in.namespace_unit()); }

/// ast.literal_eval of the literals a command line carries: integers,
/// floats, True/False/None, quoted strings. Anything else is the string
/// itself, as nanoGPT's configurator falls back to on ValueError.
Value f_literal_eval(Interp& in, Args& a) {
  Value src = a.get(in, 0, "node_or_string").value_or(Value::unknown());
  auto s = in.as_str(src);
  if (!s) return Value::unknown();
  std::string t(*s);
  if (t == "True" || t == "False") return Value::boolean(t == "True");
  if (t == "None") return Value::none();
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front())
    return in.str_value(t.substr(1, t.size() - 2));
  return number_word(in, t).value_or(src);
}

}  // namespace

uint16_t Interp::namespace_unit() const {
  if (stack.empty()) return 0;
  uint16_t u = stack.back()->module;
  return units[u]->exec_into != kNone16 ? units[u]->exec_into : u;
}

void Interp::set_global(uint16_t u, std::string_view name, Value v, std::string_view how) {
  Unit& un = unit(u);
  ir::Symbol s = un.ir->names.find(name);
  if (s == ir::kNoSymbol) return;  // a name the unit never reads
  if (un.is_user) v = override_source(name, v, user_line(), how);
  bool shared = false;
  uint32_t slot = latest_store(*this, u, s, &shared);
  if (slot != UINT32_MAX && !shared) {
    // The top level reads the name through the value its store made: the
    // store now holds the new one (Python rebinds the name).
    un.top->vals[slot] = v;
    un.globals_set.erase(s);
    return;
  }
  un.globals_set[s] = v;  // functions' reads (LoadGlobal) see it
}

Value Interp::globals_dict(uint16_t u) {
  Value d = make_dict();
  Unit& un = unit(u);
  const ir::Function& f = un.ir->fn(ir::FunctionId(0));
  for (uint32_t k = 0; k < f.local_count && k < f.vars.size(); ++k) {
    ir::Symbol s = f.vars[k].name;
    if (s == ir::kNoSymbol) continue;
    std::string_view name = un.ir->names.str(s);
    if (auto v = unit_global(u, name)) setitem(d, str_value(name), *v);
  }
  o(d).flags |= kGlobalsDict;
  o(d).index = u;
  return d;
}

void Interp::exec_file(std::string_view path, Span at) {
  const uint16_t target = namespace_unit();
  const uint16_t cur = stack.empty() ? 0 : stack.back()->module;
  const ir::ModuleContext* ctx = unit(cur).view.ctx;
  const std::string shown(path);
  if (!opt.project || !ctx || !ctx->follow) {
    note_unknown("`exec(open(\"" + shown + "\").read())` is not run: the script's project is not followed", at, false);
    return;
  }
  if (exec_runs >= kMaxExecRuns) {
    note_unknown("`exec(open(\"" + shown + "\").read())` is not run: " + std::to_string(kMaxExecRuns) +
                     " exec'd files already ran",
                 at, false);
    return;
  }
  // Python opens a relative path from the working directory; the script's
  // folder is where it is usually run from.
  fs::path p(shown);
  std::string file = shown;
  if (p.is_relative()) {
    std::error_code ec;
    fs::path from_dir = fs::path(ctx->package_dir.empty() ? "." : ctx->package_dir) / p;
    file = fs::exists(p, ec) ? p.string() : from_dir.string();
  }
  std::string why;
  const ir::LoadedModule* m = opt.project->project->store.load_exec(*ctx, file, why);
  if (!m || !opt.project->project->facts(m)) {
    note_unknown("`exec(open(\"" + shown + "\").read())` is not run: " + (why.empty() ? "it could not be read" : why),
                 at, false);
    return;
  }
  if (units.size() >= kNone16 - 1) return;
  ++exec_runs;
  auto un = std::make_unique<Unit>();
  un->ir = m->ir.get();
  un->name = unit(target).name;
  un->project = m;
  un->view = dataflow::ProjectView{opt.project->project, &m->ctx, &m->imports};
  un->exec_into = target;
  const uint16_t id = static_cast<uint16_t>(units.size());
  units.push_back(std::move(un));
  // The exec'd code runs as part of the caller, its frame on top of the
  // caller's: namespace_unit() and user_line() answer for the caller.
  try {
    run(id, ir::FunctionId(0), {}, nullptr, kNone32);
  } catch (const YieldStop&) {
  }
  // The names it bound are the caller's now.
  Unit& xu = unit(id);
  const ir::Function& f = xu.ir->fn(ir::FunctionId(0));
  const std::string rel = fs::path(m->ctx.path).lexically_relative(fs::path(ctx->package_dir.empty() ? "." : ctx->package_dir)).string();
  for (uint32_t k = 0; k < f.local_count && k < f.vars.size(); ++k) {
    ir::Symbol s = f.vars[k].name;
    if (s == ir::kNoSymbol) continue;
    std::string_view name = xu.ir->names.str(s);
    if (auto v = unit_global(id, name)) set_global(target, name, *v, exec_how(*this, name, rel.empty() ? shown : rel));
  }
}

/// Methods of the file objects `open` gives: read() is the file's text
/// (for exec), a `with` block binds the file itself.
Value exec_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = false;
  Obj* ob = in.instance(self);
  if (!ob || ob->type == kNone32 || in.str(ob->type) != "io.file") return Value::unknown();
  handled = true;
  (void)a;
  if (n == "__enter__") return self;
  if (n == "__exit__" || n == "close") return Value::none();
  if (n == "read") {
    Value t = new_instance(in, "io.file.text");
    if (const Value* p = ob->attrs.find(in.intern("name"))) in.o(t).attrs.set(in.intern("name"), *p);
    return t;
  }
  return Value::unknown();
}

/// A write to a globals() dict rebinds the module's name.
void globals_write(Interp& in, Value dict, Value key, Value v) {
  const Obj& ob = in.o(dict);
  if (!(ob.flags & kGlobalsDict)) return;
  auto k = in.as_str(key);
  if (!k) return;
  const std::string name(*k);
  in.set_global(static_cast<uint16_t>(ob.index), name, v, exec_how(in, name, "globals()"));
}

void register_exec(Builtins& b) {
  auto& f = b.functions;
  f["builtins.open"] = b_open;
  f["builtins.exec"] = b_exec;
  f["builtins.globals"] = b_globals;
  f["ast.literal_eval"] = f_literal_eval;
}

}  // namespace tpf::memory
