package dev.portcullis.state;

/** Hears the changes below a watched path, in order, on the store's event thread. */
@FunctionalInterface
public interface StoreListener {
  void changed(StoreEvent event);
}
