# frozen_string_literal: true

# Roman numerals for the integers 1 to 3999.
module Roman
  SYMBOLS = [
    [1000, 'M'],
    [500, 'D'],
    [100, 'C'],
    [50, 'L'],
    [10, 'X'],
    [5, 'V'],
    [1, 'I']
  ].freeze

  # The numeral in standard form: a smaller symbol before a larger one subtracts from it, so 4 is
  # IV and 900 is CM, never IIII or DCCCC.
  def self.numeral(number)
    raise ArgumentError, "out of range: #{number}" unless number.is_a?(Integer) && number.between?(1, 3999)

    rest = number
    SYMBOLS.each_with_object(+'') do |(value, symbol), out|
      count, rest = rest.divmod(value)
      out << symbol * count
    end
  end
end
