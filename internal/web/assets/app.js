// statusd status page: a little progressive enhancement. Everything works
// without it; with it, times are shown in the reader's time zone, the daily
// uptime bars get a tooltip on hover and keyboard focus, and a page that
// says an incident is open reloads itself every minute.
(function () {
  "use strict";

  // Times: the server writes UTC; show them in the reader's zone and keep
  // the UTC text as the title.
  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, {
        year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short"
      });
    } catch (e) {
      return;
    }
    var times = document.querySelectorAll("time[data-local]");
    for (var i = 0; i < times.length; i++) {
      var el = times[i];
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) continue;
      el.title = el.textContent;
      el.textContent = fmt.format(d);
    }
    var note = document.getElementById("tz-note");
    if (note) {
      var zone = "";
      try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
      note.textContent = "Times are in your time zone" + (zone ? " (" + zone + ")" : "") + "; hover over one for UTC.";
    }
  }

  // Tooltips for the uptime bars, shown on hover and on focus.
  var tip = null;
  function showTip(bar) {
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "tip";
      tip.id = "bar-tip";
      tip.setAttribute("role", "tooltip");
      tip.hidden = true;
      document.body.appendChild(tip);
    }
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    var date = document.createElement("strong");
    date.textContent = bar.getAttribute("data-date");
    tip.appendChild(date);
    var up = document.createElement("p");
    var down = bar.getAttribute("data-down");
    var nodata = bar.hasAttribute("data-nodata");
    up.textContent = nodata ? "No data" : bar.getAttribute("data-uptime") + " uptime" + (down ? ", down " + down : "");
    tip.appendChild(up);
    var incidents = (bar.getAttribute("data-incidents") || "").split("\n").filter(Boolean);
    if (incidents.length > 0) {
      var list = document.createElement("ul");
      incidents.forEach(function (s) {
        var li = document.createElement("li");
        li.textContent = s;
        list.appendChild(li);
      });
      tip.appendChild(list);
    } else if (!nodata) {
      var none = document.createElement("p");
      none.textContent = "No incidents";
      tip.appendChild(none);
    }
    tip.hidden = false;
    var r = bar.getBoundingClientRect();
    var w = tip.offsetWidth;
    var left = r.left + window.scrollX + r.width / 2 - w / 2;
    var max = document.documentElement.clientWidth + window.scrollX - w - 8;
    left = Math.max(window.scrollX + 8, Math.min(left, max));
    tip.style.left = left + "px";
    tip.style.top = (r.bottom + window.scrollY + 8) + "px";
  }
  function hideTip() {
    if (tip) tip.hidden = true;
  }

  function bars() {
    var groups = document.querySelectorAll("svg[data-bars]");
    for (var g = 0; g < groups.length; g++) {
      var items = groups[g].querySelectorAll(".bar");
      if (items.length === 0) continue;
      // One tab stop per row (the latest day); arrow keys move between days.
      for (var i = 0; i < items.length; i++) items[i].setAttribute("tabindex", i === items.length - 1 ? "0" : "-1");
      groups[g].addEventListener("keydown", rowKeys);
    }
    document.addEventListener("mouseover", function (e) {
      var bar = e.target.closest && e.target.closest(".bar");
      if (bar) showTip(bar); else if (!document.activeElement || !document.activeElement.classList || !document.activeElement.classList.contains("bar")) hideTip();
    });
    document.addEventListener("focusin", function (e) {
      if (e.target.classList && e.target.classList.contains("bar")) showTip(e.target); else hideTip();
    });
    document.addEventListener("focusout", function (e) {
      if (e.target.classList && e.target.classList.contains("bar")) hideTip();
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") hideTip();
    });
    window.addEventListener("resize", hideTip);
  }

  function rowKeys(e) {
    var bar = e.target.closest && e.target.closest(".bar");
    if (!bar) return;
    var items = Array.prototype.slice.call(this.querySelectorAll(".bar"));
    var i = items.indexOf(bar), next = -1;
    switch (e.key) {
      case "ArrowLeft": next = Math.max(0, i - 1); break;
      case "ArrowRight": next = Math.min(items.length - 1, i + 1); break;
      case "Home": next = 0; break;
      case "End": next = items.length - 1; break;
      default: return;
    }
    e.preventDefault();
    bar.setAttribute("tabindex", "-1");
    items[next].setAttribute("tabindex", "0");
    items[next].focus();
  }

  // Reload every data-refresh seconds while the page says an incident is
  // open, unless the page is hidden or the reader is typing in a form.
  function refresh() {
    var every = parseInt(document.body.getAttribute("data-refresh"), 10);
    if (!(every > 0)) return;
    window.setInterval(function () {
      if (document.visibilityState === "hidden") return;
      var a = document.activeElement;
      if (a && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(a.tagName)) return;
      window.location.reload();
    }, every * 1000);
  }

  // A mirrored page (CONTRACT C10) reads its copy's mirror.json, named by
  // data-mirror, and says so when the copy is older than stale_after; it
  // asks again every minute, as a heartbeat moves generated_at.
  function staleness() {
    var manifest = document.body.getAttribute("data-mirror");
    var banner = document.getElementById("mirror-stale");
    if (!manifest || !banner || !window.fetch) return;
    function check() {
      fetch(manifest, { cache: "no-store" }).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (m) {
        if (!m) return;
        var age = (Date.now() - new Date(m.generated_at).getTime()) / 1000;
        var minutes = Math.max(0, Math.floor(age / 60));
        var ago = minutes + (minutes === 1 ? " minute" : " minutes") + " ago";
        var note = document.getElementById("mirror-age");
        if (note) note.textContent = "A copy of the status page, updated " + ago + ".";
        banner.hidden = !(age > m.stale_after);
        banner.textContent = "This copy was last updated " + ago + "; the live page may be unavailable.";
      }).catch(function () {});
    }
    check();
    window.setInterval(check, 60000);
  }

  function start() {
    localTimes();
    bars();
    refresh();
    staleness();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
