// The dashboard's reliability panel: pairwise kappa heat maps and control accuracy over time, drawn from
// #reliability-data (the same numbers as the tables beside them).
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
      const name = escapeXml(k.annotators[a].slice(0, 14));
      out.push('<text x="' + (margin - 4) + '" y="' + (margin + cell * a + cell / 2) + '" text-anchor="end" dominant-baseline="middle">' + name + "</text>");
      out.push('<text transform="translate(' + (margin + cell * a + cell / 2) + " " + (margin - 4) + ') rotate(-60)" dominant-baseline="middle">' + name + "</text>");
      for (let b = 0; b < n; b++) {
        const x = k.kappa[a][b];
        out.push('<rect x="' + (margin + cell * b) + '" y="' + (margin + cell * a) + '" width="' + (cell - 1) + '" height="' + (cell - 1) + '" fill="' + colour(x) + '"><title>' +
          escapeXml(k.annotators[a] + " / " + k.annotators[b] + ": " + (x === null ? "–" : x.toFixed(2))) + "</title></rect>");
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
    const margin = 90;
    const cell = Math.max(8, Math.min(40, Math.floor((canvas.width - margin) / Math.max(n, 1))));
    canvas.height = margin + cell * n + 4;
    const ctx = canvas.getContext("2d");
    ctx.font = "11px sans-serif";
    ctx.textBaseline = "middle";
    for (let a = 0; a < n; a++) {
      ctx.fillStyle = "#222";
      ctx.textAlign = "right";
      ctx.fillText(k.annotators[a].slice(0, 14), margin - 4, margin + cell * a + cell / 2);
      ctx.save();
      ctx.translate(margin + cell * a + cell / 2, margin - 4);
      ctx.rotate(-Math.PI / 3);
      ctx.textAlign = "left";
      ctx.fillText(k.annotators[a].slice(0, 14), 0, 0);
      ctx.restore();
      for (let b = 0; b < n; b++) {
        const x = k.kappa[a][b];
        ctx.fillStyle = colour(x);
        ctx.fillRect(margin + cell * b, margin + cell * a, cell - 1, cell - 1);
        if (cell >= 28 && x !== null) {
          ctx.fillStyle = Math.abs(x) > 0.6 ? "#fff" : "#222";
          ctx.textAlign = "center";
          ctx.fillText(x.toFixed(2), margin + cell * b + cell / 2, margin + cell * a + cell / 2);
        }
      }
    }
 
    canvas.chartSvg = function () { return heatmapSvg(k, canvas.width, canvas.height, margin, cell); };
  });

  const chart = document.getElementById("control-chart");
  if (chart && window.Chart) {
    const names = Object.keys(data.annotators).sort();
    const datasets = names
      .filter(function (name) { return data.annotators[name].control; })
      .map(function (name) {
        return {
          label: name,
          data: data.annotators[name].control.series.map(function (p, i) { return { x: i + 1, y: p.cumulative }; }),
        };
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
