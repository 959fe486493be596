/**
 * The cost-of-security harness and its report, after the methodology of Chua Kai Ping,
 * <i>Performance Analysis of MYSEA</i> (Naval Postgraduate School thesis, 2012): cells, trials,
 * statistics, SVG charts.
 */
package dev.portcullis.bench.cost;
