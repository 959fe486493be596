/**
 * The cost-of-security harness and its report, after the methodology of Chua Kai Ping,
 * <i>Performance Analysis of MYSEA</i> (Naval Postgraduate School thesis, 2012). {@code
 * CostOfSecurity} plans the cells and rounds; each {@code Layer} (a security configuration, or the
 * raw TCP baseline) is measured by its {@code LayerRunner} ({@code CopsRunner}, {@code RawRunner}
 * over {@code RawTcp}); {@code Cell}, {@code Metric} and {@code Stats} hold the trials and their
 * statistics; {@code Report}, {@code Svg} and {@code JmhResults} write the JSON, HTML and charts.
 */
package dev.portcullis.bench.cost;
