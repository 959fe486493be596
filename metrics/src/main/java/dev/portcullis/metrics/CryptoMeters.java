package dev.portcullis.metrics;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code portcullis_crypto_provider_info{algorithm, provider}}: 1 for the provider serving each
 * algorithm now, refreshed at every scrape (a component's crypto table can switch at run time).
 */
public final class CryptoMeters {
  private CryptoMeters() {}

  /** Binds the provider series of {@code registry} (read anew at each scrape) to {@code m}. */
  public static void bind(MetricsEndpoint m, Supplier<CryptoRegistry> registry) {
    MultiGauge g =
        MultiGauge.builder("portcullis.crypto.provider.info")
            .description("1 for the provider serving each algorithm")
            .register(m.registry());
    m.beforeScrape(
        () -> {
          CryptoRegistry r = registry.get();
          List<MultiGauge.Row<?>> rows = new ArrayList<>();
          for (Algorithm a : Algorithm.values()) {
            String p;
            try {
              p = r.providerFor(a);
            } catch (RuntimeException e) {
              continue; // not served here
            }
            rows.add(MultiGauge.Row.of(Tags.of("algorithm", a.jcaName(), "provider", p), 1));
          }
          g.register(rows, true);
        });
  }
}
