# frozen_string_literal: true

require_relative '../lib/roman'

RSpec.describe Roman do
  it 'writes one as I' do
    expect(Roman.numeral(1)).to eq('I')
  end

  it 'adds symbols from the largest down' do
    expect(Roman.numeral(2026)).to eq('MMXXVI')
  end

  it 'rejects zero' do
    expect { Roman.numeral(0) }.to raise_error(ArgumentError)
  end
end
