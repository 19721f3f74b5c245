// Helpers every Handlebars template may use. They run inside the isolate, like the template.
(function () {
  var H = Handlebars;
  function num(v) { var n = Number(v); return isFinite(n) ? n : 0; }
  H.registerHelper("eq", function (a, b) { return a === b; });
  H.registerHelper("ne", function (a, b) { return a !== b; });
  H.registerHelper("gt", function (a, b) { return num(a) > num(b); });
  H.registerHelper("lt", function (a, b) { return num(a) < num(b); });
  H.registerHelper("add", function (a, b) { return num(a) + num(b); });
  H.registerHelper("subtract", function (a, b) { return num(a) - num(b); });
  H.registerHelper("multiply", function (a, b) { return num(a) * num(b); });
  H.registerHelper("divide", function (a, b) { return num(b) === 0 ? 0 : num(a) / num(b); });
  H.registerHelper("sum", function (list, key) {
    if (!Array.isArray(list)) return 0;
    return list.reduce(function (t, item) {
      return t + (typeof key === "string" ? num(item && item[key]) : num(item));
    }, 0);
  });
  H.registerHelper("sumProduct", function (list, a, b) {
    if (!Array.isArray(list)) return 0;
    return list.reduce(function (t, item) { return t + num(item && item[a]) * num(item && item[b]); }, 0);
  });
  H.registerHelper("formatNumber", function (v, digits) {
    var d = typeof digits === "number" ? digits : 2;
    return num(v).toLocaleString("en-US", {minimumFractionDigits: d, maximumFractionDigits: d});
  });
  H.registerHelper("formatCurrency", function (v, code) {
    var c = typeof code === "string" ? code : "USD";
    try { return new Intl.NumberFormat("en-US", {style: "currency", currency: c}).format(num(v)); }
    catch (e) { return c + " " + num(v).toFixed(2); }
  });
  H.registerHelper("formatDate", function (v) {
    var d = new Date(v);
    return isNaN(d.getTime()) ? String(v == null ? "" : v)
      : d.toLocaleDateString("en-US", {year: "numeric", month: "long", day: "numeric", timeZone: "UTC"});
  });
  H.registerHelper("odd", function (v) { return num(v) % 2 === 1; });
  H.registerHelper("upper", function (v) { return String(v == null ? "" : v).toUpperCase(); });
  H.registerHelper("json", function (v) { return JSON.stringify(v); });
  // {{chart spec}} with a spec from the data, or {{#chart}}{...JSON...}{{/chart}} written in
  // the template; Python turns the placeholder into a server-rendered Vega-Lite image.
  H.registerHelper("chart", function (spec, options) {
    if (arguments.length < 2) {
      options = spec;
      try { spec = JSON.parse(options.fn(this)); }
      catch (e) { throw new Error("chart: the block is not valid JSON (" + e.message + ")"); }
    } else if (typeof spec === "string") {
      try { spec = JSON.parse(spec); }
      catch (e) { throw new Error("chart: the spec string is not valid JSON"); }
    }
    if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
      throw new Error("chart: needs a Vega-Lite spec object");
    }
    var src = "vega-lite:" + encodeURIComponent(JSON.stringify(spec));
    return new H.SafeString('<img class="chart" src="' + src + '">');
  });
  H.registerHelper("pageBreak", function () { return new H.SafeString("<pdf:nextpage></pdf:nextpage>"); });
  H.registerHelper("toc", function () { return new H.SafeString("<pdf:toc></pdf:toc>"); });
})();
