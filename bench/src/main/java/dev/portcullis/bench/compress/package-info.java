/**
 * The compression model of J. P. McGregor and R. B. Lee, <i>Performance Impact of Data Compression
 * on Virtual Private Network Transactions</i>, fed with rates measured here.
 */
package dev.portcullis.bench.compress;
