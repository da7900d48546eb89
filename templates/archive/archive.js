/* The archive's pages work without this script: a game page lists every step one after another, the index
   shows every game. With it:
   - a game page shows one step at a time: first, back, next and last buttons, a slider over every step, the
     arrow keys (and Home, End); the step shown is in the address as #step-N, so it can be linked and reloaded;
   - the index filters its rows by player and kind (#player=KEY in the address preselects a player) and sorts
     them by a column when its head is clicked (again: the other way round).
   Nothing is fetched: the pages hold everything they show. */
(function () {
  "use strict";

  function stepThrough(container, stepper) {
    var steps = Array.prototype.slice.call(container.querySelectorAll(".step"));
    if (!steps.length) return;
    var slider = stepper.querySelector("input[type=range]");
    var label = stepper.querySelector("output");
    var go = {};
    Array.prototype.forEach.call(stepper.querySelectorAll("[data-go]"), function (button) {
      go[button.getAttribute("data-go")] = button;
    });
    var last = steps.length - 1;
    var current = -1;

    function fromAddress() {
      var found = /^#step-(\d+)$/.exec(window.location.hash);
      if (!found) return null;
      for (var i = 0; i < steps.length; i++) {
        if (steps[i].getAttribute("data-step") === found[1]) return i;
      }
      return null;
    }

    function show(index, remember) {
      index = Math.max(0, Math.min(last, index));
      if (current >= 0) steps[current].classList.remove("current");
      steps[index].classList.add("current");
      current = index;
      slider.value = String(index);
      label.textContent = "Step " + steps[index].getAttribute("data-step") + " of " + steps[last].getAttribute("data-step");
      go.first.disabled = go.previous.disabled = index === 0;
      go.next.disabled = go.last.disabled = index === last;
      if (remember) {
        var address = "#" + steps[index].id;
        if (window.location.hash !== address) {
          try {
            window.history.replaceState(null, "", address);  // no jump to the step, no entry per step
          } catch (refused) {  // a browser that keeps file: pages from it: the address stays as it was
          }
        }
      }
    }

    slider.max = String(last);
    slider.addEventListener("input", function () { show(Number(slider.value), true); });
    go.first.addEventListener("click", function () { show(0, true); });
    go.previous.addEventListener("click", function () { show(current - 1, true); });
    go.next.addEventListener("click", function () { show(current + 1, true); });
    go.last.addEventListener("click", function () { show(last, true); });
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.altKey || event.ctrlKey || event.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
      var moves = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last};
      if (!(event.key in moves)) return;
      event.preventDefault();
      show(moves[event.key], true);
    });
    window.addEventListener("hashchange", function () {
      var index = fromAddress();
      if (index === null) return;
      show(index, false);
      steps[index].scrollIntoView();  // the browser looked for it while it was still hidden
    });
    // The stepper sticks to the top of the window: a step scrolled to stops below it (style.css reads the
    // height as scroll-margin-top), however many lines its buttons wrap to.
    function measureStepper() {
      document.documentElement.style.setProperty("--stepper-height", stepper.offsetHeight + "px");
    }
    window.addEventListener("resize", measureStepper);
    var start = fromAddress();
    show(start === null ? last : start, false);
    container.classList.add("stepping");
    stepper.hidden = false;
    measureStepper();
    if (start !== null) steps[start].scrollIntoView();
  }

  function sortValue(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    return numeric ? Number(value) : value.toLowerCase();
  }

  function filterAndSort(table, form) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var shown = form.querySelector("output");

    function filter() {
      var player = form.elements.player.value;
      var kind = form.elements.kind.value;
      var count = 0;
      rows.forEach(function (row) {
        var keep = (!player || row.getAttribute("data-players").split(" ").indexOf(player) >= 0)
          && (!kind || row.getAttribute("data-kind") === kind);
        row.hidden = !keep;
        if (keep) count++;
      });
      shown.textContent = count === rows.length ? "" : count + " of " + rows.length + " games";
    }

    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (head, column) {
      var kind = head.getAttribute("data-sort");
      if (!kind) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (head.firstChild) button.appendChild(head.firstChild);
      head.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = head.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = kind === "number";
        rows.sort(function (a, b) {
          var x = sortValue(a, column, numeric), y = sortValue(b, column, numeric);
          if (x === y) return 0;
          if (x === "") return 1;  // what has no value (a running game's end) goes last either way
          if (y === "") return -1;
          return (x < y ? -1 : 1) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });

    form.addEventListener("change", filter);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    var wanted = /^#player=(.+)$/.exec(window.location.hash);
    if (wanted) form.elements.player.value = decodeURIComponent(wanted[1]);
    if (form.elements.player.selectedIndex < 0) form.elements.player.value = "";
    filter();
    form.hidden = false;
  }

  function start() {
    document.documentElement.classList.add("scripted");  // the style sheet shows what only works with this script
    var steps = document.querySelector("[data-steps]");
    var stepper = document.querySelector("[data-stepper]");
    if (steps && stepper) stepThrough(steps, stepper);
    var games = document.querySelector("[data-games]");
    var filters = document.querySelector("[data-filters]");
    if (games && filters) filterAndSort(games, filters);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
