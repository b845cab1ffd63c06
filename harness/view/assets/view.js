// The grid's filters: by task name, outcome, failure kind and config. They read and write
// the page's query string, so a filtered grid is a link (a lineage point opens one).
(function () {
  var grid = document.getElementById("grid");
  var form = document.getElementById("filters");
  if (!grid || !form) return;
  var fields = ["task", "outcome", "kind", "config"];
  var params = new URLSearchParams(window.location.search);
  fields.forEach(function (name) {
    var el = form.elements[name];
    if (params.has(name)) el.value = params.get(name);
    el.addEventListener(name === "task" ? "input" : "change", apply);
  });

  function matches(box, outcome, kind) {
    var o = box.getAttribute("data-o");
    if (outcome === "solved" ? !(o === "p1" || o === "p2") : outcome && o !== outcome) return false;
    if (kind && (" " + box.getAttribute("data-k") + " ").indexOf(" " + kind + " ") < 0) return false;
    return true;
  }

  function apply() {
    var task = form.elements.task.value.trim().toLowerCase();
    var outcome = form.elements.outcome.value, kind = form.elements.kind.value;
    var config = form.elements.config.value;
    var shown = 0;
    grid.querySelectorAll("[data-config]").forEach(function (cell) {
      cell.classList.toggle("hidden", !!config && cell.getAttribute("data-config") !== config);
    });
    grid.querySelectorAll("tbody tr").forEach(function (row) {
      var rowShown = 0;
      if (!task || row.getAttribute("data-task").toLowerCase().indexOf(task) >= 0) {
        row.querySelectorAll("td").forEach(function (cell) {
          var inConfig = !config || cell.getAttribute("data-config") === config;
          cell.querySelectorAll("a.t").forEach(function (box) {
            var on = inConfig && matches(box, outcome, kind);
            box.classList.toggle("hidden", !on);
            if (on) rowShown++;
          });
        });
      }
      row.classList.toggle("hidden", rowShown === 0);
      shown += rowShown;
    });
    document.getElementById("shown").textContent = shown + " of " + grid.getAttribute("data-total") + " trials";
    var query = new URLSearchParams();
    fields.forEach(function (name) { if (form.elements[name].value) query.set(name, form.elements[name].value); });
    var search = query.toString();
    try { history.replaceState(null, "", search ? "?" + search : window.location.pathname); } catch (e) { /* file:// pages may refuse */ }
  }
  if (fields.some(function (name) { return params.has(name); })) apply();
})();
