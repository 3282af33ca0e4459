// The dashboard's small interactions: copy buttons and confirmations.
// Values are only ever set as text, never as HTML.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.copy");
    if (!b) return;
    var text = b.getAttribute("data-copy") || "";
    var done = function () {
      b.textContent = "Copied";
      setTimeout(function () { b.textContent = "Copy"; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
    } else {
      var t = document.createElement("textarea");
      t.value = text;
      t.setAttribute("readonly", "");
      t.style.position = "absolute";
      t.style.left = "-9999px";
      document.body.appendChild(t);
      t.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* nothing to do */ }
      document.body.removeChild(t);
    }
  });
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    var q = f.getAttribute("data-confirm");
    if (q && !window.confirm(q)) ev.preventDefault();
  });
})();
