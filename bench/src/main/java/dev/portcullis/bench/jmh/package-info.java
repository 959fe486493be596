/**
 * The JMH suites, one per question, each run by name from {@code benchmarks.jar} ({@code java -jar
 * bench/target/benchmarks.jar HmacProviderBenchmark}): providers per algorithm and size, provider
 * initialisation and first use, the COPS codec, TLS handshakes per engine, the policy engines, the
 * active router's verification, the token bucket against Bucket4j. Every class here is JMH; the
 * command-line harnesses that drive whole servers are in {@code dev.portcullis.bench} and its
 * {@code cost}, {@code compress} and {@code tunnel} packages. Reference: {@code
 * docs/benchmarks.md}.
 */
package dev.portcullis.bench.jmh;
