/**
 * JMH suites, load harnesses and the main job's demo: what each provider, security layer and
 * component costs. Reference: {@code docs/benchmarks.md}.
 */
package dev.portcullis.bench;
