package com.convplatform.support;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;

import io.vertx.core.Vertx;

/** Blocking work dispatched from the event loop. */
public final class Workers {
    private Workers() {
    }

    /**
     * Runs the work on a worker of the current (request's) context, so its logs carry the request and trace ids; not
     * ordered with other blocking work of that context. Called on a Vert.x context, such as a request's event loop.
     */
    public static <T> CompletionStage<T> onWorker(Callable<T> work) {
        return Vertx.currentContext().executeBlocking(work, false).toCompletionStage();
    }
}
