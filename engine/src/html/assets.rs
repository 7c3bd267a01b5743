//! The page's inline style sheet and script: nothing is fetched, so the
//! page opens from disk, offline, the same everywhere.

/// Screen and print styles. Rows of the chart and of the table share one
/// height (`ROW` in the writer, 24 px; the heading 44 px).
pub(crate) const CSS: &str = r##"
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:16px;color:#1b1f24;background:#fff}
h1{font-size:18px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 4px}h3{font-size:14px;margin:16px 0 4px}
.verdict{font-weight:600;font-size:16px;margin:4px 0}
.good{color:#116329}.bad{color:#b3261e}.neutral{color:#6e4c00}
code,pre,td,svg text{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace}
.notes{margin:4px 0;padding-left:20px;color:#444}.note{margin:2px 0;color:#444}
.legend{display:grid;grid-template-columns:max-content auto;gap:0 10px;margin:6px 0;font-size:12px}
.legend dt{font-weight:600}.legend dd{margin:0}
.trace{display:flex;align-items:flex-start}
.lanes{flex:none}
svg{display:block}
svg.head{position:sticky;top:0;background:#fff;z-index:2}
svg text{font-size:11px}
.role rect{fill:#eef3fb;stroke:#5a7bb5}.role text{text-anchor:middle;font-weight:600}
.band{fill:#fff}.band.odd{fill:#f3f5f8}
.lifeline{stroke:#9aa7b8;stroke-width:1.5;stroke-dasharray:4 3}
.starved{stroke:#d97706;stroke-width:6;opacity:.5}
.msg{stroke:#24292f;stroke-width:1.3}.msg.open{stroke-dasharray:5 3;stroke:#6b7280}
marker path{fill:#24292f}
.dot{fill:#24292f}
.close{fill:#fff;stroke:#b3261e;stroke-width:1.5}.local{fill:#fff7d6;stroke:#6e4c00}
.lbl{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round;fill:#1b1f24}
.num{text-anchor:end;fill:#57606a}
.cycle path{fill:none;stroke:#8250df;stroke-width:2}.cyclbl{fill:#8250df;font-weight:600}
.back{fill:none;stroke:#8250df;stroke-dasharray:4 3}
text.end{font-size:12px;font-weight:600}text.end.neutral{fill:#8250df}
.ending .mark,.ending .bar{stroke-width:3;fill:none}
.ending.bad .mark,.ending.bad .bar{stroke:#b3261e}.ending.bad text{fill:#b3261e}
.ending.good .mark,.ending.good .bar{stroke:#116329}.ending.good text{fill:#116329}
.ending.neutral .mark,.ending.neutral .bar{stroke:#6e4c00}.ending.neutral text{fill:#6e4c00}
table.cols{border-collapse:collapse;font-size:12px;flex:none}
table.cols th{height:44px;box-sizing:border-box;padding:0 6px;text-align:left;position:sticky;top:0;background:#fff;box-shadow:inset 0 -1px #d0d7de;white-space:nowrap;z-index:1}
table.cols td{height:24px;box-sizing:border-box;padding:0 6px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:36ch;line-height:22px}
table.cols tbody tr:nth-child(even){background:#f3f5f8}
td.good,td.bad{font-weight:600;text-align:center}td.neutral{text-align:center}
pre.section{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px}
@media print{
body{margin:0;font-size:11px}
svg.head,table.cols th{position:static}
h2,h3{break-after:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
pre.section{white-space:pre-wrap}
table.cols td{max-width:28ch}
}
"##;

/// The self-check: only with `#selftest` in the URL, it measures the laid
/// out page and writes one line per chart into `#selftest`, for the
/// browser tests (`key=value` words: steps drawn, lanes in order, labels
/// overlapping, table rows out of line with the chart's, the steps the
/// cycle bracket spans).
pub(crate) const JS: &str = r##"
(function(){
if(location.hash!=="#selftest")return;
var out=[];
function rs(root,sel){return [].slice.call(root.querySelectorAll(sel)).map(function(e){return e.getBoundingClientRect();});}
document.querySelectorAll("section.chart").forEach(function(ch){
var n=+ch.getAttribute("data-steps");
var groups=[].slice.call(ch.querySelectorAll("svg.body g.step"));
var seq=groups.every(function(g,i){var b=g.getBoundingClientRect();return +g.getAttribute("data-i")===i&&b.height>0;})?1:0;
var bands=rs(ch,"svg.body rect.band");
var ordered=1,i,j;
var roles=rs(ch,"g.role");
for(i=1;i<roles.length;i++){if(!(roles[i].left>=roles[i-1].right))ordered=0;}
var lifes=rs(ch,"line.lifeline");
for(i=1;i<lifes.length;i++){if(!((lifes[i].left+lifes[i].right)>(lifes[i-1].left+lifes[i-1].right)))ordered=0;}
var names=[].slice.call(ch.querySelectorAll("g.role")).map(function(g){return +g.getAttribute("data-lane");});
for(i=0;i<names.length;i++){if(names[i]!==i)ordered=0;}
var texts=rs(ch,"svg text");
texts.sort(function(a,b){return a.top-b.top;});
var ov=0;
for(i=0;i<texts.length;i++){for(j=i+1;j<texts.length&&texts[j].top<texts[i].bottom-0.5;j++){
var a=texts[i],b=texts[j];
if(Math.min(a.right,b.right)-Math.max(a.left,b.left)>0.5)ov++;}}
var trs=rs(ch,"table.cols tbody tr");
var mis=0;
for(i=0;i<trs.length;i++){var bd=bands[i];
if(!bd||Math.abs(trs[i].top-bd.top)>1.5||Math.abs(trs[i].height-bd.height)>1.5)mis++;}
var line="chart="+ch.id+" steps="+groups.length+" expected="+n+" seq="+seq+" bands="+bands.length+
" lanes="+roles.length+" lanes_ordered="+ordered+" texts="+texts.length+" label_overlaps="+ov+
" rows="+trs.length+" rows_misaligned="+mis;
var cy=ch.querySelector("g.cycle path");
if(cy){var r=cy.getBoundingClientRect(),lo=-1,hi=-1;
for(i=0;i<bands.length;i++){var c=(bands[i].top+bands[i].bottom)/2;
if(c>=r.top&&c<=r.bottom){if(lo<0)lo=i;hi=i;}}
line+=" cycle="+lo+"-"+hi;}
line+=" ending="+(ch.querySelector("text.end")?1:0);
out.push(line);});
var pre=document.getElementById("selftest");
pre.textContent=out.join("\n");pre.hidden=false;
})();
"##;
