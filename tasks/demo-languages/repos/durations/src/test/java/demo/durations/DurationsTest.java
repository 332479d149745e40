package demo.durations;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class DurationsTest {
    @Test
    public void formatsEveryPart() {
        assertEquals("1h 2m 5s", Durations.format(3725));
    }

    @Test
    public void formatsSecondsAlone() {
        assertEquals("42s", Durations.format(42));
        assertEquals("0s", Durations.format(0));
    }
}
