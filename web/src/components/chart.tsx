import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: number[];
}

/** Line colours by series position; styles.css gives the legend's `swatch-<n>` the same ones. */
const COLORS = ['#1f5fbf', '#c2410c', '#1e6b35'];

/**
 * A daily line chart (uPlot, canvas). The canvas says nothing to a screen reader, so the chart is an image with
 * a name, and the page shows the same figures as a table: its text alternative. Only lazily loaded pages import it.
 */
export function DailyChart(props: { label: string; days: Date[]; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [props.days.map((d) => d.getTime() / 1000), ...props.series.map((s) => s.values)];
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height: props.height ?? 240,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
        axes: [{ stroke: '#5a6272', grid: { stroke: '#eef1f5' } }, { stroke: '#5a6272', grid: { stroke: '#eef1f5' }, size: 50 }],
        series: [{}, ...props.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: props.days.length <= 31 } }))],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height: props.height ?? 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.days, props.series, props.height]);
  return (
    <div class="chart-box">
      <div ref={box} role="img" aria-label={props.label} />
      <ul class="legend" aria-hidden="true">
        {props.series.map((s, i) => <li><span class={`swatch swatch-${i}`} />{s.label}</li>)}
      </ul>
    </div>
  );
}
