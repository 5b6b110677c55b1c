"use strict";
(function () {
  var form = document.getElementById("filters");
  var cases = document.querySelectorAll(".case");
  var verdictBoxes = form.querySelectorAll("input[name=verdict]");
  var area = form.querySelector("select[name=area]");

  function apply() {
    var wanted = {};
    verdictBoxes.forEach(function (box) { wanted[box.value] = box.checked; });
    var shown = 0;
    cases.forEach(function (c) {
      var visible = wanted[c.dataset.verdict] && (area.value === "" || c.dataset.area === area.value);
      c.hidden = !visible;
      if (visible) shown += 1;
    });
    document.getElementById("shown").textContent = shown + " of " + cases.length + " cases shown";
  }

  // #verdict=fail,non-strict&area=tools presets the filters.
  function fromFragment() {
    var params = new URLSearchParams(location.hash.slice(1));
    if (params.has("verdict")) {
      var list = params.get("verdict").split(",");
      verdictBoxes.forEach(function (box) { box.checked = list.indexOf(box.value) >= 0; });
    }
    if (params.has("area")) area.value = params.get("area");
  }

  form.addEventListener("change", apply);
  window.addEventListener("hashchange", function () { fromFragment(); apply(); });
  fromFragment();
  apply();
})();
