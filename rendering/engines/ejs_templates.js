// EJS templates in the isolate (the real ejs library, vendor/ejs.min.js). A template is
// JavaScript: it runs only in the one-render child process (v8_child.py) under the same
// time and memory limits as Handlebars; the process that checks a submit only compiles
// it (ejs builds a Function from the source and never calls it). `include()` has nothing
// to load but the partials the caller gave (by slug): the isolate has no file system.
var EjsTemplates = (function () {
  // include("slug") finds the workspace templates the caller resolved (partials), and
  // nothing else: the isolate has no file system.
  var given = {};
  function includer(path) {
    if (Object.prototype.hasOwnProperty.call(given, path)) {
      return {template: given[path]};
    }
    throw new Error("include(" + JSON.stringify(path) + "): no template with that slug to " +
      "include (put the part in this template, or in a function it defines)");
  }
  var options = {compileDebug: true, includer: includer, async: false, client: false};
  function compileFails(source) {
    try { ejs.compile(source, options); return null; }
    catch (e) { return String((e && e.message) || e).split("\n")[0]; }
  }
  // ejs reports a JavaScript syntax error without its line: the line is the first whose
  // start of the template fails the same way (as the helpers' check finds theirs).
  function check(source) {
    var full = compileFails(source);
    if (full === null) { return {ok: true}; }
    var lines = source.split("\n"), lo = 1, hi = lines.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (compileFails(lines.slice(0, mid).join("\n")) === full) { hi = mid; } else { lo = mid + 1; }
    }
    var message = full.replace(/ while compiling ejs$/, "");
    if (message === "Unexpected token 'catch'") {
      // ejs wraps the template's code in a try block, so an unclosed `{` reads like this.
      message = "a block opened here is never closed (a '}' is missing)";
    }
    return {ok: false, message: message, line: lo};
  }
  // A runtime error with compileDebug: "ejs:LINE", the numbered lines, a blank line, then
  // the reason.
  function runtimeFailure(e) {
    var message = String((e && e.message) || e);
    var found = /^ejs:(\d+)\n[\s\S]*?\n\n([\s\S]*)$/.exec(message);
    if (found) { return {message: found[2], line: Number(found[1])}; }
    return {message: message, line: null};
  }
  function render(source, data, partials) {
    var compiled;
    given = partials || {};
    var result = check(source);
    if (!result.ok) { return {ok: false, syntax: true, message: result.message, line: result.line}; }
    compiled = ejs.compile(source, options);
    try { return {ok: true, html: String(compiled(data))}; }
    catch (e) {
      var failure = runtimeFailure(e);
      return {ok: false, syntax: false, message: failure.message, line: failure.line};
    }
  }
  return {check: check, render: render};
})();
