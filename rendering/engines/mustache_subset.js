// Mustache as the Handlebars subset it is: a template handlebars.js parsed is refused,
// with its line and column, where it uses what only Handlebars has (helpers and their
// arguments, {{else}}, @data, ../ paths, partials, decorators). It then renders with
// handlebars.js in compat mode (names are looked up through the enclosing sections, as
// Mustache does) and with no helpers, so {{#if}} is a section over the key "if".
var MustacheSubset = (function () {
  function fail(message, node) {
    var e = new Error(message);
    e.lineNumber = node && node.loc ? node.loc.start.line : null;
    e.column = node && node.loc ? node.loc.start.column : null;
    throw e;
  }
  function name(node) { return node.path && node.path.original ? String(node.path.original) : "?"; }
  function path(node, where) {
    if (node.type !== "PathExpression") {
      fail("a Mustache tag takes a name, not a literal (that is Handlebars: use the handlebars engine)", where);
    }
    if (node.data) {
      fail(node.original + " is a Handlebars data variable; Mustache has none", where);
    }
    if (node.depth > 0) {
      fail("../ paths are Handlebars; Mustache finds names in the enclosing sections by itself", where);
    }
  }
  function tag(node) {
    if (node.params.length || (node.hash && node.hash.pairs.length)) {
      fail("{{" + name(node) + " …}} with arguments is a Handlebars helper call; a Mustache tag takes one name", node);
    }
    path(node.path, node);
  }
  function program(prog) { if (prog) { prog.body.forEach(statement); } }
  function statement(node) {
    switch (node.type) {
      case "ContentStatement":
      case "CommentStatement":
        return;
      case "MustacheStatement":
        tag(node);
        return;
      case "BlockStatement":
        tag(node);
        if (node.program && node.inverse) {
          fail("{{else}} is Handlebars; in Mustache write an inverted section {{^" + name(node) + "}}…{{/" + name(node) + "}}", node);
        }
        program(node.program);
        program(node.inverse);
        return;
      case "PartialStatement":
        // {{> slug}}: another template of the workspace, by its slug.
        if (node.params.length || (node.hash && node.hash.pairs.length) || node.name.type !== "PathExpression") {
          fail("{{> name …}} with arguments is Handlebars; a Mustache partial takes one name", node);
        }
        return;
      case "PartialBlockStatement":
        fail("partial blocks ({{#> name}}) are Handlebars, not Mustache", node);
        return;
      default:
        fail("decorators and inline partials are Handlebars, not Mustache", node);
    }
  }
  // A section over a value: Handlebars' own blockHelperMissing, except that a list is
  // iterated here and not through the `each` helper, so that no helper is left and
  // {{#each}} is a section over the key "each" like any other.
  // As mustache.js: every JavaScript falsy value ("", 0, false, null, NaN) and an empty
  // list skip a section and open an inverted one.
  function section(context, options) {
    if (context === true) { return options.fn(this); }
    if (!context) { return options.inverse(this); }
    if (Array.isArray(context)) {
      if (!context.length) { return options.inverse(this); }
      var out = "";
      for (var i = 0; i < context.length; i++) { out += options.fn(context[i]); }
      return out;
    }
    return options.fn(context);
  }
  function environment() {
    var env = Handlebars.create();
    Object.keys(env.helpers).forEach(function (helper) {
      if (helper !== "helperMissing") { env.unregisterHelper(helper); }
    });
    env.registerHelper("blockHelperMissing", section);
    return env;
  }
  // The compiler calls the helpers it knows directly; none of them is known here.
  var unknown = {if: false, unless: false, with: false, each: false, log: false, lookup: false};
  function render(ast, data, partials) {
    var env = environment();
    Object.keys(partials || {}).forEach(function (name) {
      var tree = Handlebars.parse(partials[name]);
      program(tree);
      env.registerPartial(name, env.compile(tree, {compat: true, knownHelpers: unknown}));
    });
    return env.compile(ast, {compat: true, knownHelpers: unknown})(data);
  }
  return {check: function (ast) { program(ast); }, render: render};
})();
