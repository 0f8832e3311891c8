// The dashboard's reliability panel: pairwise kappa heat maps and control accuracy over time, drawn from
// #reliability-data (the same numbers as the tables beside them). The heat map numbers its annotators as
// the key beside it does; pointing at a cell writes its pair and kappa below the map (and in its title).
(function () {
  "use strict";
  const holder = document.getElementById("reliability-data");
  if (!holder) return;
  const data = JSON.parse(holder.textContent);

  function colour(x) {
    if (x === null || x === undefined) return "#ddd";
    const v = Math.max(-1, Math.min(1, x));
    return "hsl(" + (v >= 0 ? 215 : 5) + ", 70%, " + Math.round(100 - 45 * Math.abs(v)) + "%)";
  }

  function number(x) {
    return x === null || x === undefined ? "–" : x.toFixed(2);
  }

  function escapeXml(text) {
    return String(text).replace(/[<>&"']/g, function (c) {
      return { "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // The heat map as SVG, laid out as the canvas draws it (the chart downloads' SVG, static/js/chart_downloads.js).
  function heatmapSvg(k, width, height, margin, cell) {
    const n = k.annotators.length;
    const out = ['<rect width="' + width + '" height="' + height + '" fill="#fff"/>'];
    for (let a = 0; a < n; a++) {
      // numbered as on the canvas and in the key beside it; each cell's title names the pair
      out.push('<text x="' + (margin - 3) + '" y="' + (margin + cell * a + cell / 2) + '" text-anchor="end" dominant-baseline="middle">' + (a + 1) + "</text>");
      out.push('<text x="' + (margin + cell * a + cell / 2) + '" y="' + (margin / 2) + '" text-anchor="middle" dominant-baseline="middle">' + (a + 1) + "</text>");
      for (let b = 0; b < n; b++) {
        const x = k.kappa[a][b];
        out.push('<rect x="' + (margin + cell * b) + '" y="' + (margin + cell * a) + '" width="' + (cell - 1) + '" height="' + (cell - 1) + '" fill="' + colour(x) + '"><title>' +
          escapeXml((a + 1) + " " + k.annotators[a] + " × " + (b + 1) + " " + k.annotators[b] + ": κ = " + number(x)) + "</title></rect>");
        if (cell >= 28 && x !== null) {
          out.push('<text x="' + (margin + cell * b + cell / 2) + '" y="' + (margin + cell * a + cell / 2) + '" text-anchor="middle" dominant-baseline="middle" fill="' +
            (Math.abs(x) > 0.6 ? "#fff" : "#222") + '">' + x.toFixed(2) + "</text>");
        }
      }
    }
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height +
      '" font-family="sans-serif" font-size="11" fill="#222">' + out.join("") + "</svg>";
  }

  document.querySelectorAll("canvas.kappa-heatmap").forEach(function (canvas) {
    const k = data.kappa[canvas.dataset.criterion];
    if (!k) return;
    const n = k.annotators.length;
    const margin = 26;
    const cell = Math.max(8, Math.min(40, Math.floor((canvas.width - margin) / Math.max(n, 1))));
    canvas.height = margin + cell * n + 4;
    const ctx = canvas.getContext("2d");
    ctx.font = (cell < 14 ? 9 : 11) + "px sans-serif";
    ctx.textBaseline = "middle";
    for (let a = 0; a < n; a++) {
      ctx.fillStyle = "#222";
      ctx.textAlign = "right";
      ctx.fillText(String(a + 1), margin - 3, margin + cell * a + cell / 2);
      ctx.textAlign = "center";
      ctx.fillText(String(a + 1), margin + cell * a + cell / 2, margin / 2);
      for (let b = 0; b < n; b++) {
        const x = k.kappa[a][b];
        ctx.fillStyle = colour(x);
        ctx.fillRect(margin + cell * b, margin + cell * a, cell - 1, cell - 1);
        if (cell >= 28 && x !== null) {
          ctx.fillStyle = Math.abs(x) > 0.6 ? "#fff" : "#222";
          ctx.fillText(x.toFixed(2), margin + cell * b + cell / 2, margin + cell * a + cell / 2);
        }
      }
    }
    const hover = canvas.parentElement.querySelector(".kappa-hover");
    const idle = hover ? hover.textContent : "";
    canvas.addEventListener("mousemove", function (event) {
      const box = canvas.getBoundingClientRect();
      const scale = canvas.width / box.width;
      const b = Math.floor(((event.clientX - box.left) * scale - margin) / cell);
      const a = Math.floor(((event.clientY - box.top) * scale - margin) / cell);
      if (a < 0 || b < 0 || a >= n || b >= n) return;
      const text = (a + 1) + " " + k.annotators[a] + " × " + (b + 1) + " " + k.annotators[b] + ": κ = " + number(k.kappa[a][b]);
      canvas.title = text;
      if (hover) hover.textContent = text;
    });
    canvas.addEventListener("mouseleave", function () {
      if (hover) hover.textContent = idle;
    });
    canvas.chartSvg = function () { return heatmapSvg(k, canvas.width, canvas.height, margin, cell); };
  });

  const chart = document.getElementById("control-chart");
  if (chart && window.Chart) {
    const datasets = Object.keys(data.control).map(function (name) {
      return { label: name, data: data.control[name].map(function (y, i) { return { x: i + 1, y: y }; }) };
    });
    if (datasets.length) {
      new window.Chart(chart, {
        type: "line",
        data: { datasets: datasets },
        options: {
          animation: false,
          parsing: true,
          scales: {
            x: { type: "linear", title: { display: true, text: gettext("control item (in submission order)") }, ticks: { stepSize: 1 } },
            y: { min: 0, max: 1, title: { display: true, text: gettext("cumulative accuracy") } },
          },
        },
      });
    } else {
      chart.replaceWith(Object.assign(document.createElement("p"), { textContent: gettext("No control items answered yet.") }));
    }
  }
})();
